"""vLLM's VLLM_PP_LAYER_PARTITION (vllm-project/vllm@5a6541d:vllm/distributed/utils.py get_pp_indices): the stated
layers per PP stage decide what one GPU holds, and a value get_pp_indices refuses stops the engine (CTX301)."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text
from ctxlint.physics.pp_partition import even_split, refusal

YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: pp}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: s
        image: vllm/vllm-openai:v0.11.0
        args: ["meta-llama/Llama-3.1-8B-Instruct", "--pipeline-parallel-size", "2", "--max-model-len", "131072"]
        env:
        - {name: VLLM_PP_LAYER_PARTITION, value: "PARTS"}
        resources: {limits: {nvidia.com/gpu: 2}}
"""


def _findings(parts: str):
    return [(f.rule, f.line, f.column, f.message) for f in lint_text(YAML.replace("PARTS", parts), "d.yaml").findings]


def test_refusals_as_get_pp_indices_raises():
    assert refusal("16,x", 2, 32) == "Invalid partition string: 16,x"
    assert refusal("32", 2, 32) == "len(partitions)=1 does not match pp_size=2."
    assert refusal("20,20", 2, 32) == "sum(partitions)=40 does not match num_hidden_layers=32."
    assert refusal("20,20", 2, None) == ""  # the layer count unknown: the sum is not judged
    assert refusal(" 26, 6", 2, 32) == ""  # Python's int() takes the blanks


def test_even_split_gives_the_remainder_to_the_stages_before_the_last():
    # get_pp_indices: partitions[-i] += 1 for i in 2..remainder+1 (a log of 43 layers at PP 2: "[22,21]",
    # SystemPanic/vllm-windows#71)
    assert even_split(43, 2) == (22, 21) and even_split(30, 4) == (7, 8, 8, 7) and even_split(32, 2) == (16, 16)


def test_stated_partition_sizes_the_busiest_stage():
    # 16,16 is vLLM's own split of Llama-3.1-8B's 32 layers: 131,072 tokens fit two L4s
    assert _findings("16,16") == []
    [(rule, line, col, msg)] = _findings("26,6")
    # 26 layers x 4,096 B (8 KV heads x 128 x 2 x 2 B) on the first GPU, and 26/32 of the weights
    assert (rule, line, col) == ("CTX201", 11, 105)
    assert "weights 12.15 GiB" in msg and "/ 106,496 B per token per GPU = 61,264 tokens" in msg


@pytest.mark.parametrize("parts,err", [
    ("20,20", "sum(partitions)=40 does not match num_hidden_layers=32."),
    ("16,x", "Invalid partition string: 16,x"),
    ("32", "len(partitions)=1 does not match pp_size=2."),
])
def test_refused_value_is_ctx301_at_the_value(parts, err):
    assert _findings(parts) == [(
        "CTX301", 13, 50, f"vLLM would refuse to start: VLLM_PP_LAYER_PARTITION={parts} at pipeline-parallel size 2: "
        f"get_pp_indices raises ValueError('{err}') while it builds the model's layers: write 2 layer count(s) that "
        "sum to 32, one per PP stage (vLLM's own split is 16,16)")]


SGLANG = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: pp}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: s
        image: lmsysorg/sglang:v0.5.4
        command: ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--pp-size", "PP", "--context-length", "131072"]
        env:
        - {name: SGLANG_PP_LAYER_PARTITION, value: "PARTS"}
        resources: {limits: {nvidia.com/gpu: 2}}
"""


def _sglang(pp: int, parts: str):
    text = SGLANG.replace("PARTS", parts).replace('"PP"', f'"{pp}"')
    return [(f.rule, f.line, f.column, f.message) for f in lint_text(text, "d.yaml").findings]


def test_sglang_reads_its_own_variable():
    # sglang==0.5.23: sglang/srt/distributed/utils.py get_pp_indices, SGLANG_PP_LAYER_PARTITION
    assert _sglang(2, "16,16") == []
    [(rule, line, col, msg)] = _sglang(2, "26,6")
    assert (rule, line, col) == ("CTX201", 11, 151) and "weights 12.15 GiB) / 106,496 B per token per GPU" in msg
    assert _sglang(2, "20,20") == [(
        "CTX301", 13, 52, "SGLang would refuse to start: SGLANG_PP_LAYER_PARTITION=20,20 at pipeline-parallel size 2: "
        "get_pp_indices raises ValueError('sum(partitions)=40 does not match num_hidden_layers=32.') while it builds "
        "the model's layers: write 2 layer count(s) that sum to 32, one per PP stage (SGLang's own split is 16,16)")]
    # SGLang 0.5.23 ignores the variable at PP 1 (earlier code did not): not judged there
    assert [r for r, *_ in _sglang(1, "20,20") if r == "CTX301"] == []


def test_sglang_even_split_gives_the_remainder_to_the_last_stages():
    assert even_split(30, 4, "sglang") == (7, 7, 8, 8) and even_split(43, 2, "sglang") == (21, 22)


def test_a_pp_size_not_known_is_not_taken_for_one():
    """`--pipeline-parallel-size $(PP)` from a config map: CTX008 says the size is unknown, so the partition's
    length is not judged against PP 1."""
    text = YAML.replace("PARTS", "16,16").replace('"--pipeline-parallel-size", "2"', '"--pipeline-parallel-size", "$(PP)"') \
        .replace("        env:\n", "        env:\n        - {name: PP, valueFrom: {configMapKeyRef: {name: c, key: pp}}}\n")
    rules = [(f.rule, f.message) for f in lint_text(text, "d.yaml").findings]
    assert any(r == "CTX008" for r, _ in rules), rules
    assert not any(r == "CTX301" for r, _ in rules), rules
