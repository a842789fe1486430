"""dstack run configurations: `commands` read as the one shell line dstack runs, `env`, `resources.gpu` in
dstack's spec syntax, the GPU counts the runner sets (DSTACK_GPUS_NUM), groups and nodes."""
from __future__ import annotations

import os

import pytest

from ctxlint.adapters.dstack_gpus import gpu_options
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.discover import discover
from ctxlint.loader import parse_text
from helpers import run
from tests.adapters.kit import adapt, arg, at

SERVICE = """\
type: service
name: qwen
image: vllm/vllm-openai:v0.10.1
env:
  - HF_TOKEN
  - MODEL_ID=Qwen/Qwen3-8B
  - CTX=32768
commands:
  - pip install hf_transfer
  - |
    vllm serve $MODEL_ID \\
      --max-model-len $CTX --gpu-memory-utilization 0.85 \\
      --tensor-parallel-size $DSTACK_GPUS_NUM
port: 8000
replicas: 2
resources:
  gpu: L4:2
"""


def test_service_commands_env_and_device_at_their_places():
    result = adapt(SERVICE, ".dstack.yml")
    assert result.diagnostics == []
    (dep,) = result.deployments
    assert (dep.input_format, dep.name.value, dep.roles[0].replicas.value) == ("dstack", "qwen", 2)
    (role,) = dep.roles
    assert role.accelerators.type.value == "L4" and at(SERVICE, role.accelerators.type.source) == "L4"
    assert role.accelerators.count.value == 2 and at(SERVICE, role.accelerators.count.source) == "2"
    tp = role.parallelism.tensor  # the runner's DSTACK_GPUS_NUM: the fixed count, at the token typed
    assert tp.value == 2 and at(SERVICE, tp.source) == "$DSTACK_GPUS_NUM" and tp.source.path == "commands[1]"
    assert at(SERVICE, arg(role, "gpu_memory_utilization").source) == "0.85"
    assert at(SERVICE, arg(role, "max_model_len").source) == "32768"  # the env value, after its `=`
    assert dep.model.id.value == "Qwen/Qwen3-8B" and at(SERVICE, dep.model.id.source) == "Qwen/Qwen3-8B"


def _options(spec: str):
    text = f"gpu: {spec}\n"
    loaded = parse_text(text, "t.dstack.yml")
    reported = []
    found = gpu_options(loaded.documents[0].root.get("gpu"), ScalarSpans("t.dstack.yml", text),
                        lambda node, why: reported.append(why.split(";")[0]))
    return [(d.value if d else None, c.value if c else None, label) for d, c, label in found] + reported


@pytest.mark.parametrize("spec, expected", [
    ("H100:8", [("H100-SXM-80GB", 8, "H100:8")]),
    ("8:H200", [("H200", 8, "H200:8")]),  # the tokens in any order
    ("A100:80GB:2", [("A100-SXM4-80GB", 2, "A100:80GB:2")]),
    ("A100:2", [("A100-40GB", 2, "A100:40GB:2"), ("A100-SXM4-80GB", 2, "A100:80GB:2")]),  # gpuhunt: 40 and 80 GB
    ("A100:40GB..:2", [("A100-40GB", 2, "A100:40GB:2"), ("A100-SXM4-80GB", 2, "A100:80GB:2")]),
    ("H100,H200:8", [("H100-SXM-80GB", 8, "H100:8"), ("H200", 8, "H200:8")]),
    ("amd:MI300X:8", [("MI300X", 8, "MI300X:8")]),
    ("MI300X", [("MI300X", None, "MI300X")]),  # no count: `1..`, as many as the offer has
    ("24GB", [(None, None, "")]),  # a memory alone is several devices: none stated
    ("80GB:8", [(None, 8, "")]),
    ("24GB..:1..2", [(None, None, "")]),
    ("nvidia:2", [(None, 2, "")]),
    ("2..2", [(None, 2, "")]),
    ("{name: [H100], memory: 80GB, count: 8}", [("H100-SXM-80GB", 8, "H100:8")]),
    ("{name: H100, count: {min: 4, max: 8}}", [("H100-SXM-80GB", None, "H100")]),
    ("{name: H100, count: {min: 4, max: 4}}", [("H100-SXM-80GB", 4, "H100:4")]),
    ("[H100]", [(None, None, "")]), ("true", [(None, None, "")]),
    # what GPUSpec.parse refuses: reported, and no device or count taken from it
    ("'::'", [(None, None, ""), "dstack refuses this GPU spec (an empty token)"]),
    ("'H100:xGB:8'", [(None, None, ""), "dstack refuses this GPU spec (two names)"]),
    ("'H100:2:8'", [(None, None, ""), "dstack refuses this GPU spec (two counts)"]),
])
def test_gpu_specs(spec, expected):
    assert _options(spec) == expected


def test_gpu_name_and_count_tokens_are_placed():
    text = "gpu: A100:80GB:2\n"
    (found,) = gpu_options(parse_text(text, "t").documents[0].root.get("gpu"), ScalarSpans("t", text), print)
    assert (found[0].source.col, found[0].source.end_col, found[1].source.col) == (6, 10, 16)


def test_each_device_option_is_a_deployment_and_an_unfixed_count_is_unknown(tmp_path):
    text = SERVICE.replace("gpu: L4:2", "gpu: H100,H200")
    names = [d.name.value for d in adapt(text, "s.dstack.yml").deployments]
    assert names == ["qwen [H100]", "qwen [H200]"]
    path = tmp_path / "s.dstack.yml"
    path.write_text(text)
    out = run(["check", str(path), "--fail-on", "never"]).out
    assert "--tensor-parallel-size ${DSTACK_GPUS_NUM} (DSTACK_GPUS_NUM dstack sets it to the GPUs of the " \
           "instance it gets, and `resources.gpu` fixes no count)" in out


def test_env_mapping_user_environment_and_secrets():
    text = """\
    type: task
    env: {CTX: 8192, HF_TOKEN: "${{ secrets.HF_TOKEN }}"}
    commands: ["python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length $CTX --tp $N"]
    nodes: 2
    resources: {gpu: "H100:8"}
    """
    (dep,) = adapt(text, "task.dstack.yml").deployments
    (role,) = dep.roles
    assert dep.name.value == "task" and arg(role, "context_length").value == 8192
    assert role.parallelism.tensor is None or role.parallelism.tensor.value != 16  # `$N`: nothing sets it
    text = text.replace("--tp $N", "--tp $DSTACK_GPUS_PER_NODE --nnodes $DSTACK_NODES_NUM")
    (role,) = adapt(text, "task.dstack.yml").deployments[0].roles
    assert role.parallelism.tensor.value == 8


def test_background_command_groups_and_what_is_no_deployment():
    text = """\
    type: service
    name: pd
    groups:
      - name: prefill
        replicas: 1
        commands: ["echo start", "vllm serve Qwen/Qwen3-8B --max-model-len 8192 &", "sleep infinity"]
        resources: {gpu: "L40S:1"}
      - name: decode
        replicas: 1..4
        commands: ["vllm serve Qwen/Qwen3-8B --max-model-len 4096"]
        resources: {gpu: "L40S:1"}
    """
    deps = adapt(text, "pd.dstack.yml").deployments
    assert sorted(d.name.value for d in deps) == ["pd [decode]", "pd [prefill]"]
    first = next(d for d in deps if d.name.value == "pd [prefill]")
    assert at(text, first.roles[0].context_length.source) == "8192"
    assert adapt(text.replace("type: service", "type: dev-environment"), "pd.dstack.yml").deployments == []
    bad = "type: service\ncommands: [1, {a: b}, null]\nenv: [3]\nresources: {gpu: {name: 5, count: x}}\n"
    assert adapt(bad, "b.dstack.yml").deployments == []


def test_a_directory_scan_reads_dstack_default_file_and_zsh_scripts(tmp_path):
    for name in (".dstack.yml", "serve.dstack.yml", ".gitlab-ci.yml", "start.zsh", ".hidden.sh"):
        (tmp_path / name).write_text("a: 1\n")
    found = [os.path.basename(p) for p in discover([str(tmp_path)])]
    assert found == [".dstack.yml", "serve.dstack.yml", "start.zsh"]
