"""Every Val points at the value token as typed, whatever form the command takes."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, arg, at

HEAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: chat}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: engine
          image: vllm/vllm-openai:v0.11.0
"""


def one_role(text):
    result = adapt(text)
    assert len(result.deployments) == 1, result
    dep = result.deployments[0]
    assert len(dep.roles) == 1
    return dep, dep.roles[0]


def test_list_args_separate_value():
    text = HEAD + """\
          args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072", "-tp", "2"]
"""
    dep, role = one_role(text)
    assert role.context_length.value == 131072
    assert (role.context_length.source.line, role.context_length.source.col) == (11, 74)
    assert at(text, role.context_length.source) == "131072"
    assert at(text, role.parallelism.tensor.source) == "2"
    assert at(text, dep.model.id.source) == "meta-llama/Llama-3.1-8B-Instruct"
    assert dep.engine.name.value == "vllm" and dep.engine.version.value == "0.11.0"
    assert role.replicas.value == 2 and dep.name.value == "chat"


def test_flag_equals_value_in_block_list():
    text = HEAD + """\
          args:
            - meta-llama/Llama-3.1-8B-Instruct
            - --max-model-len=32768
            - '--gpu-memory-utilization=0.85'
"""
    _, role = one_role(text)
    assert at(text, role.context_length.source) == "32768"
    assert role.context_length.source.col == 31
    mem = arg(role, "gpu_memory_utilization")
    assert mem.value == 0.85 and at(text, mem.source) == "0.85"


def test_sh_c_double_quoted_string_with_escapes():
    text = HEAD + r"""          command: ["/bin/sh", "-c", "echo \"start\" && exec vllm serve m --max-model-len 65536 --num-gpu-blocks-override 100"]
"""
    _, role = one_role(text)
    assert at(text, role.context_length.source) == "65536"
    assert role.kv_pool_tokens.value == 1600  # 100 blocks x 16 tokens
    assert at(text, role.kv_pool_tokens.source) == "100"


def test_literal_block_scalar_with_continuations():
    text = HEAD + """\
          command: ["bash", "-c"]
          args:
            - |
              pip install foo
              python3 -m sglang.launch_server \\
                --model-path Qwen/Qwen3-8B \\
                --context-length 40960 \\
                --disaggregation-mode prefill
"""
    dep, role = one_role(text)
    assert role.kind == "prefill"
    assert (role.context_length.source.line, role.context_length.source.col) == (17, 34)
    assert at(text, role.context_length.source) == "40960"
    assert at(text, role.role.source) == "prefill"
    assert dep.engine.name.value == "sglang"


def test_folded_block_scalar():
    text = HEAD + """\
          command: ["sh", "-c"]
          args:
            - >-
              vllm serve m
              --max-model-len 8192
"""
    _, role = one_role(text)
    assert at(text, role.context_length.source) == "8192"


def test_env_var_setting_points_at_env_value():
    text = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: tgi}
    spec:
      template:
        spec:
          containers:
            - name: tgi
              image: ghcr.io/huggingface/text-generation-inference:2.4.0
              env:
                - {name: MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct}
                - name: MAX_TOTAL_TOKENS
                  value: "8192"
                - name: MAX_INPUT_TOKENS
                  value: "4096"
    """
    dep, role = one_role(text)
    assert role.context_length.value == 8192
    assert at(text, role.context_length.source) == '"8192"'
    assert arg(role, "max_input_tokens").value == 4096
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert dep.engine.version.value == "2.4.0"


def test_k8s_var_expansion_points_at_env_value():
    text = HEAD + """\
          args: ["m", "--max-model-len=$(MAX_LEN)"]
          env:
            - name: MAX_LEN
              value: "16384"
"""
    _, role = one_role(text)
    assert role.context_length.value == 16384
    assert at(text, role.context_length.source) == '"16384"'


def test_unresolved_reference_is_reported_once_and_not_guessed():
    text = HEAD + """\
          args: ["$(MODEL)", "--max-model-len=$(MAX_LEN)", "--tensor-parallel-size", "$(TP)"]
          env:
            - name: MAX_LEN
              valueFrom: {secretKeyRef: {name: s, key: k}}
"""
    result = adapt(text)
    role = result.deployments[0].roles[0]
    assert role.context_length is None
    [diag] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert "--max-model-len $(MAX_LEN)" in diag.message and "--tensor-parallel-size $(TP)" in diag.message
    assert "argument $(MODEL)" in diag.message and at(text, diag.source) == "$(MODEL)"


CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: runtime-7k2f9h8m}
data:
  MODEL_ID: Qwen/Qwen3-8B
  MAX_MODEL_LEN: "32768"
  TP: "2"
---
"""


def test_config_map_key_refs_to_a_config_map_of_the_file_are_its_values():
    # `kubectl kustomize` output: the generated ConfigMap (hash-suffixed) sits beside the Deployment
    text = CONFIG_MAP + HEAD + """\
          args: ["--model=$(MODEL_ID)", "--max-model-len=$(MAX_MODEL_LEN)", "--tensor-parallel-size=$(TP)"]
          env:
            - name: MODEL_ID
              valueFrom: {configMapKeyRef: {name: runtime-7k2f9h8m, key: MODEL_ID}}
            - name: MAX_MODEL_LEN
              valueFrom: {configMapKeyRef: {name: runtime-7k2f9h8m, key: MAX_MODEL_LEN}}
            - name: TP
              valueFrom: {configMapKeyRef: {name: runtime-7k2f9h8m, key: NOT_THERE, optional: true}}
"""
    result = adapt(text)
    dep, role = result.deployments[0], result.deployments[0].roles[0]
    assert dep.model.id.value == "Qwen/Qwen3-8B" and role.context_length.value == 32768
    assert at(text, role.context_length.source) == '"32768"'  # where to change it: the ConfigMap
    assert (role.context_length.source.line, role.context_length.source.path) == (6, "data.MAX_MODEL_LEN")
    [diag] = [d for d in result.diagnostics if d.kind == "unresolved-value"]  # a key it lacks: not guessed
    assert "--tensor-parallel-size $(TP)" in diag.message and "MODEL_ID" not in diag.message
    # a ConfigMap not in the file, or a Secret, is not known
    elsewhere = text.replace("name: runtime-7k2f9h8m}\ndata", "name: other}\ndata")
    assert adapt(elsewhere).deployments[0].roles[0].context_length is None


def test_a_config_map_of_another_namespace_is_not_read():
    # a pod reads ConfigMaps of its own namespace only; an unset namespace on one side is where the file is
    # applied (`kubectl apply -n X` refuses objects of another one), unless the name is ambiguous
    one = CONFIG_MAP.replace("metadata: {name: runtime-7k2f9h8m}", "metadata: {name: runtime-7k2f9h8m, namespace: a}")
    other = CONFIG_MAP.replace("metadata: {name: runtime-7k2f9h8m}", "metadata: {name: runtime-7k2f9h8m, namespace: b}"
                               ).replace('"32768"', '"4096"')
    pod = HEAD.replace("metadata: {name: chat}", "metadata: {name: chat, namespace: a}") + """\
          args: ["--model=Qwen/Qwen3-8B", "--max-model-len=$(MAX_MODEL_LEN)"]
          envFrom: [{configMapRef: {name: runtime-7k2f9h8m}}]
"""
    for maps, expected in ((one + other, 32768), (other + one, 32768), (other, None), (CONFIG_MAP, 32768)):
        _, role = one_role(maps + pod)
        assert (role.context_length.value if role.context_length else None) == expected
    unset = pod.replace(", namespace: a}", "}")
    for maps, expected in ((CONFIG_MAP, 32768), (other, 4096), (one + other, None)):
        _, role = one_role(maps + unset)
        assert (role.context_length.value if role.context_length else None) == expected

def test_env_from_a_config_map_of_the_file_and_env_after_it_wins():
    text = CONFIG_MAP + HEAD + """\
          args: ["--model=$(CM_MODEL_ID)", "--max-model-len=$(CM_MAX_MODEL_LEN)"]
          envFrom:
            - configMapRef: {name: runtime-7k2f9h8m}
              prefix: CM_
            - secretRef: {name: hf-token}
          env:
            - {name: CM_MAX_MODEL_LEN, value: "16384"}
"""
    dep, role = one_role(text)
    assert dep.model.id.value == "Qwen/Qwen3-8B" and role.context_length.value == 16384
    assert at(text, dep.model.id.source) == "Qwen/Qwen3-8B"

def test_engine_rejects_value_at_the_token():
    text = HEAD.replace("vllm/vllm-openai:v0.11.0", "lmsysorg/sglang:v0.5.21-cu129") + """\
          command: [python3, -m, sglang.launch_server, --model-path, m, --context-length, 128K]
"""
    result = adapt(text)
    [diag] = [d for d in result.diagnostics if d.kind == "engine-rejects-value"]
    assert at(text, diag.source) == "128K"
    assert "128K" in diag.message
    assert result.deployments[0].engine.version.value == "0.5.21"


def test_accelerators_from_resources_and_node_selector():
    text = HEAD + """\
          args: ["m", "-tp", "8"]
          resources:
            limits: {nvidia.com/gpu: "8"}
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-h100-80gb
"""
    _, role = one_role(text)
    assert role.accelerators.count.value == 8 and at(text, role.accelerators.count.source) == '"8"'
    assert role.accelerators.type.value == "H100-SXM-80GB"
    assert at(text, role.accelerators.type.source) == "nvidia-h100-80gb"


def test_each_settings_source_is_worked_out_once_and_is_the_same_object_everywhere(monkeypatch):
    from ctxlint.adapters import workload

    asked = []
    plain = workload._Reader.setting_source

    def counted(self, s, tokens, assigns):
        asked.append(s)
        return plain(self, s, tokens, assigns)

    monkeypatch.setattr(workload._Reader, "setting_source", counted)
    text = HEAD + """\
          args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072", "-tp", "2",
                 "--kv-cache-dtype", "fp8", "--num-gpu-blocks-override", "4096"]
"""
    dep, role = one_role(text)
    assert len(asked) == len({id(s) for s in asked}) >= 5  # context, layout, dtype and pool read them again
    args = dict(role.engine_args)
    assert role.context_length.source is args["max_model_len"].source
    assert role.parallelism.tensor.source is args["tensor_parallel_size"].source
    assert at(text, role.kv_cache_dtype.source) == "fp8" and at(text, role.kv_pool_tokens.source) == "4096"


@pytest.mark.parametrize("config, layers", [
    ('{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}', 1),
    ('{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}', 1),  # named after the draft
    ('{"method": "deepseek_mtp", "num_speculative_tokens": 1}', 1),
    ('{"method": "mtp", "num_speculative_tokens": 2}', 1),
    ('{"method": "ngram", "prompt_lookup_max": 4}', None),  # no KV of its own
    ('{"model": "meta-llama/Llama-3.2-1B"}', None),  # a draft model with its own dimensions: not modelled
])
def test_vllm_speculative_draft_layers(config, layers):
    text = HEAD + f"""\
          command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --speculative-config, '{config}']
"""
    _, role = one_role(text)
    assert (role.draft_layers.value if role.draft_layers else None) == layers
    if layers:
        assert at(text, role.draft_layers.source) == config


@pytest.mark.parametrize("algorithm, layers", [("EAGLE", 1), ("EAGLE3", 1), ("NEXTN", 1), ("NGRAM", None),
                                               ("STANDALONE", None)])
def test_sglang_speculative_draft_layers(algorithm, layers):
    text = HEAD.replace("vllm/vllm-openai:v0.11.0", "lmsysorg/sglang:v0.5.2") + f"""\
          command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B, --speculative-algorithm, {algorithm}]
"""
    _, role = one_role(text)
    assert (role.draft_layers.value if role.draft_layers else None) == layers
    if layers:
        assert at(text, role.draft_layers.source) == algorithm


def test_the_draft_layer_holds_kv_in_the_derived_pool():
    # vllm-project/vllm#19996: Llama-3.1-8B + EAGLE on one H100 logs a pool of 32 + 1 layers (engines.md §1.3)
    from ctxlint.capacity import with_pools
    text = HEAD + """\
          command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192", --speculative-config,
                    '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}']
          resources: {limits: {nvidia.com/gpu: 1}}
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
"""
    plain = text.replace(""", --speculative-config,
                    '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B"}']""", "]")
    drafted, undrafted = (with_pools(one_role(t)[0])[0].roles[0] for t in (text, plain))
    assert (drafted.capacity.kv_bytes_per_token_per_gpu, undrafted.capacity.kv_bytes_per_token_per_gpu) == (
        33 * 4096, 32 * 4096)  # 8 KV heads x 128 x 2 (K, V) x 2 B per layer
    assert drafted.pool.tokens < undrafted.pool.tokens
