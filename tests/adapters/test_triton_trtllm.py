"""Triton TensorRT-LLM launchers: fill_template.py parameters and launch_triton_server.py in a container script."""
from __future__ import annotations

from tests.adapters.kit import adapt, arg, at

TRITON = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: triton-llama
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: triton
          image: nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3
          command: ["/bin/bash", "-c"]
          args:
            - |
              python3 /app/tools/fill_template.py -i /models/tensorrt_llm/config.pbtxt triton_backend:tensorrtllm,triton_max_batch_size:64,decoupled_mode:True,engine_dir:/engines/llama,max_tokens_in_paged_kv_cache:24576,kv_cache_free_gpu_mem_fraction:0.85,max_attention_window_size:8192,batching_strategy:inflight_fused_batching
              python3 /app/scripts/launch_triton_server.py --world_size 2 --model_repo /models
              sleep infinity
          resources:
            limits:
              nvidia.com/gpu: 2
"""


def test_fill_template_parameters_are_trtllm_settings_at_their_tokens():
    res = adapt(TRITON)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.model.id) == \
        ("triton-trtllm", "triton-llama", "trtllm", None)
    assert at(TRITON, dep.engine.name.source) == "launch_triton_server.py"
    pool = role.kv_pool_tokens
    assert (pool.value, pool.source.line, pool.source.col, at(TRITON, pool.source)) == (24576, 15, 215, "24576")
    fraction = arg(role, "kv_cache_free_gpu_memory_fraction")
    assert (fraction.value, at(TRITON, fraction.source)) == (0.85, "0.85")
    assert (arg(role, "max_attention_window_size").value, arg(role, "triton_max_batch_size").value) == (8192, 64)
    # engine_dir: the C++ executor runs a compiled TensorRT engine, sized without a PyTorch warmup (trt_warmup.py)
    assert (arg(role, "backend").value, at(TRITON, arg(role, "backend").source)) == ("tensorrt", "/engines/llama")
    tp = role.parallelism.tensor
    assert (tp.value, tp.source.line, at(TRITON, tp.source)) == (2, 16, "2")
    assert (role.accelerators.count.value, role.replicas.value) == (2, 2)
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert "the model (the TensorRT-LLM engine is built outside this file" in note.message
    assert "the context length" in note.message


def test_trtllm_build_and_tokenizer_dir_in_the_same_script():
    text = TRITON.replace(
        "              python3 /app/tools/fill_template.py -i /models/tensorrt_llm/config.pbtxt",
        "              trtllm-build --checkpoint_dir /ckpt --max_seq_len 16384 --max_batch_size 32\n"
        "              python3 /app/tools/fill_template.py -i /models/preprocessing/config.pbtxt "
        "tokenizer_dir:meta-llama/Llama-3.1-8B-Instruct,triton_max_batch_size:64\n"
        "              python3 /app/tools/fill_template.py -i /models/tensorrt_llm/config.pbtxt")
    res = adapt(text)
    [dep] = res.deployments
    role = dep.roles[0]
    assert (dep.model.id.value, at(text, dep.model.id.source)) == \
        ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct")
    assert (role.context_length.value, at(text, role.context_length.source)) == (16384, "16384")
    assert arg(role, "max_batch_size").value == 32
    assert [d for d in res.diagnostics if d.kind == "unresolved-value"] == []


def test_shell_variables_are_unresolved_and_odd_shapes_never_crash():
    text = TRITON.replace("max_tokens_in_paged_kv_cache:24576", "max_tokens_in_paged_kv_cache:${KV_TOKENS}")
    res = adapt(text)
    assert res.deployments[0].roles[0].kv_pool_tokens is None
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert "kv_cache_config.max_tokens ${KV_TOKENS} (a shell variable, not evaluated)" in note.message
    assert (note.source.line, at(text, note.source)) == (15, "${KV_TOKENS}")
    odd = TRITON.replace("--world_size 2", "--world_size").replace(
        "kv_cache_free_gpu_mem_fraction:0.85", "kv_cache_free_gpu_mem_fraction:lots,:,,x")
    [dep] = adapt(odd).deployments
    assert dep.roles[0].parallelism.tensor is None
    [bare] = adapt("kind: X\nspec: {containers: [{command: launch_triton_server.py}, 5]}\n").deployments
    assert (bare.display_name, bare.roles[0].accelerators.count, bare.roles[0].replicas) == (None, None, None)
