"""Baseten Truss `config.yaml`: a docker_server's start_command read as the shell line Truss runs, the
engine and release from base_image, Baseten's GPU names through the accelerator catalog, the model a
local path is filled with, and a trt_llm section as the TensorRT-LLM settings ctxlint models. What Truss
refuses is CTX002 at the value; what has no counterpart is CTX008; nothing is guessed.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters import adapt_file, kinds
from ctxlint.loader import parse_text
from helpers import run
from tests.adapters.kit import adapt, arg, at

REPO = Path(__file__).resolve().parents[2]

VLLM = """\
model_name: llama-8b
base_image:
  image: vllm/vllm-openai:v0.10.0
docker_server:
  start_command: sh -c "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072 \
--gpu-memory-utilization 0.95"
  readiness_endpoint: /health
  liveness_endpoint: /health
  predict_endpoint: /v1/chat/completions
  server_port: 8000
resources:
  accelerator: L4
  use_gpu: true
"""


def test_the_start_command_is_read_inside_its_sh_c_string():
    # Before: no adapter read a Truss config (0 deployments, no finding).
    [dep] = adapt(VLLM, "config.yaml").deployments
    role = dep.roles[0]
    assert (dep.input_format, dep.name.value, dep.engine.name.value, dep.engine.version.value) == \
        ("truss", "llama-8b", "vllm", "0.10.0")
    assert at(VLLM, dep.model.id.source) == "meta-llama/Llama-3.1-8B-Instruct"
    assert role.context_length.value == 131072 and at(VLLM, role.context_length.source) == "131072"
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("L4", 1)
    assert at(VLLM, role.accelerators.type.source) == "L4" and role.accelerators.count.raw == "1 (Truss default)"
    assert role.replicas is None  # Baseten autoscales: the config states no replica count


def test_check_reports_the_context_at_its_token(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(VLLM)
    result = run(["check", "--isolated", "--select", "CTX201", str(path)])
    assert result.code == 1
    assert result.out.startswith(f"{path}:5:85: CTX201 [error] 131,072 > 43,952: the unified engine context length "
                                 "131,072 exceeds its KV pool 41,936 (derived for meta-llama/Llama-3.1-8B on 1x L4,")
    assert "in 1 file, 1 deployment" in result.err


SGLANG = """\
model_name: Qwen 3 32B SGLang
base_image:
  image: lmsysorg/sglang:v0.4.6.post1-cu124
model_cache:
  - repo_id: Qwen/Qwen3-32B-FP8
    revision: 37f3f67a7a82b002377985796c57f4321b85fb9a
    use_volume: true
    volume_folder: qwen3
docker_server:
  start_command: sh -c "truss-transfer-cli && python3 -m sglang.launch_server --model-path /app/model_cache/qwen3 \
--tp 2"
  server_port: 8000
  predict_endpoint: /v1/chat/completions
  readiness_endpoint: /health
  liveness_endpoint: /health
resources:
  accelerator: H100_40GB:2
"""


def test_a_model_cache_volume_path_is_the_repo_it_holds():
    [dep] = adapt(SGLANG, "config.yaml").deployments
    role = dep.roles[0]
    assert (dep.engine.name.value, dep.engine.version.value) == ("sglang", "0.4.6.post1")
    assert dep.model.id.value == "Qwen/Qwen3-32B-FP8" and dep.model.id.source.path == "model_cache[0].repo_id"
    assert role.parallelism.tensor.value == 2
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("H100-MIG-3g.40gb", 2)
    assert (at(SGLANG, role.accelerators.type.source), at(SGLANG, role.accelerators.count.source)) == ("H100_40GB", "2")
    # a path no model_cache entry fills stays the path (nothing is guessed) ...
    other = adapt(SGLANG.replace("/app/model_cache/qwen3", "/app/model_cache/other"), "config.yaml")
    assert other.deployments[0].model.id.value == "/app/model_cache/other"
    # ... unless model_metadata names the model
    named = adapt(SGLANG.replace("/app/model_cache/qwen3", "/data/m").replace(
        "model_cache:", "model_metadata:\n  repo_id: Qwen/Qwen3-32B\nmodel_cache:"), "config.yaml")
    assert named.deployments[0].model.id.value == "Qwen/Qwen3-32B"


WEIGHTS = """\
base_image:
  image: vllm/vllm-openai:v0.14.1
weights:
  - source: "hf://Qwen/Qwen3.5-9B@ef3d031a90d340a92d71f83ec17d054e100ce713"
    mount_location: "/app/checkpoint/qwen3.5-9b"
environment_variables:
  MAX_LEN: 32768
  VLLM_ALLOW_LONG_MAX_MODEL_LEN: true
secrets:
  hf_access_token: null
docker_server:
  start_command: >-
    sh -c "HF_TOKEN=$(cat /secrets/hf_access_token) vllm serve /app/checkpoint/qwen3.5-9b
    --max-model-len $MAX_LEN
    --gpu-memory-utilization $TRUSS_SECRET_hf_access_token"
  server_port: 8000
  predict_endpoint: /v1/chat/completions
  readiness_endpoint: /health
  liveness_endpoint: /health
resources:
  accelerator: {accelerator: A100, count: 1}
"""


def test_weights_env_and_secrets(tmp_path):
    [dep] = adapt(WEIGHTS, "models/qwen-9b/config.yaml").deployments
    role = dep.roles[0]
    assert dep.name.value == "qwen-9b"  # no model_name: the Truss's directory (the file is always config.yaml)
    assert dep.model.id.value == "Qwen/Qwen3.5-9B" and dep.model.id.raw.startswith("hf://Qwen/Qwen3.5-9B@")
    assert role.context_length.value == 32768 and at(WEIGHTS, role.context_length.source) == "32768"
    assert role.accelerators.type.value == "A100-SXM4-80GB"  # Baseten's A100 is the 80 GB part
    path = tmp_path / "config.yaml"
    path.write_text(WEIGHTS)
    result = run(["check", "--isolated", "--select", "CTX008", str(path)])
    assert result.out == (
        f"{path}:15:30: CTX008 [info] values ctxlint cannot resolve: --gpu-memory-utilization "
        "${TRUSS_SECRET_hf_access_token} (TRUSS_SECRET_hf_access_token has no literal value in the file (secret, "
        "config map or host variable)); the checks that need them are skipped (set them literally) "
        "(unresolved-value)\n")


@pytest.mark.parametrize("written, device, count", [
    ("T4", "T4", 1), ("A10G:2", "A10G", 2), ("A100", "A100-SXM4-80GB", 1), ("A100_40GB:4", "A100-40GB", 4),
    ("H100:8", "H100-SXM-80GB", 8), ("H100_40GB", "H100-MIG-3g.40gb", 1), ("H200", "H200", 1), ("B200:8", "B200", 8),
    ("L40S", "L40S", 1), ("V100", "V100 (16 or 32 GB: the label names no size)", 1), ("RTX_PRO_6000", "RTX-PRO-6000-Blackwell", 1),
    ("GB300", "GB300", 1), ("B10", "B10", 1),  # a name the catalog lacks stays as written: never guessed
    ("H100:2:1", "H100-SXM-80GB", 1),  # Truss reads a count only from exactly two parts
])
def test_baseten_gpu_names_through_the_catalog(written, device, count):
    [dep] = adapt(VLLM.replace("accelerator: L4", f"accelerator: {written}"), "config.yaml").deployments
    acc = dep.roles[0].accelerators
    assert (acc.type.value, acc.type.raw, acc.count.value) == (device, written.split(":")[0], count)


def test_no_accelerator_is_no_gpu_and_the_advice_names_the_field(tmp_path):
    text = VLLM.replace("  accelerator: L4\n", "").replace("131072", "8192")
    [dep] = adapt(text, "config.yaml").deployments
    assert dep.roles[0].accelerators.type is None and dep.roles[0].accelerators.count is None  # use_gpu is computed
    path = tmp_path / "config.yaml"
    path.write_text(text)
    result = run(["check", "--isolated", "--select", "CTX208", str(path)])
    assert "; state the device (`resources.accelerator: H100:2` in the Truss config: T4, L4, A10G, V100, A100, " \
           "A100_40GB, H100, H100_40GB, H200, B200, L40S, RTX_PRO_6000, B300, GB300; or `default-accelerator:` in " \
           ".ctxlint.yaml); capacity checks skip these roles (capacity-not-derivable)\n" in result.out


def test_an_instance_type_names_the_device_but_not_the_count():
    text = VLLM.replace("  accelerator: L4\n", "  accelerator: L4\n  instance_type: \"H100:4x16\"\n")
    [dep] = adapt(text, "config.yaml").deployments
    acc = dep.roles[0].accelerators
    assert acc.type.value == "H100-SXM-80GB" and acc.count is None  # `accelerator` is ignored beside it
    result = adapt(text, "config.yaml")
    [unknown] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert "the GPUs of the instance type 'H100:4x16'" in unknown.message and unknown.source.path == \
        "resources.instance_type"


TRT_V1 = """\
model_name: Llama 3.3 70B Instruct
resources:
  accelerator: H100:2
trt_llm:
  build:
    base_model: decoder
    checkpoint_repository:
      source: HF
      repo: meta-llama/Llama-3.3-70B-Instruct
    max_seq_len: 131072
    quantization_type: fp8_kv
    tensor_parallel_count: 2
  runtime:
    kv_cache_free_gpu_mem_fraction: 0.8
    enable_chunked_context: false
"""


def test_a_v1_engine_build_as_tensorrt_llm_settings():
    # Before: nothing; trt_llm had no reader. Each setting at its value, under TensorRT-LLM's own name.
    [dep] = adapt(TRT_V1, "config.yaml").deployments
    role = dep.roles[0]
    assert (dep.engine.name.value, dep.engine.version, dep.model.id.value) == \
        ("trtllm", None, "meta-llama/Llama-3.3-70B-Instruct")
    assert at(TRT_V1, dep.engine.name.source) == "trt_llm"
    assert role.context_length.value == 131072 and role.context_length.source.path == "trt_llm.build.max_seq_len"
    assert (role.parallelism.tensor.value, role.accelerators.count.value) == (2, 2)
    assert (role.kv_cache_dtype.value, at(TRT_V1, role.kv_cache_dtype.source)) == ("FP8", "fp8_kv")
    assert arg(role, "quant_config.quant_algo").value == "FP8"  # weights: FP8, quantized by the build
    assert arg(role, "kv_cache_free_gpu_memory_fraction").value == 0.8
    assert at(TRT_V1, arg(role, "kv_cache_free_gpu_memory_fraction").source) == "0.8"
    assert arg(role, "enable_chunked_prefill").value is False
    assert (arg(role, "max_batch_size").value, arg(role, "max_batch_size").source.path) == (256, "trt_llm.build")
    # Briton runs the engine the builder compiled: TensorRT-LLM's TensorRT backend, at the build section
    assert (arg(role, "backend").value, arg(role, "backend").source.path) == ("tensorrt", "trt_llm.build")


def test_truss_defaults_chunked_prefill_on(tmp_path):
    # TensorRT-LLM's own default is off; Truss turns it on, at the section key.
    [dep] = adapt(TRT_V1.replace("    enable_chunked_context: false\n", ""), "config.yaml").deployments
    assert arg(dep.roles[0], "enable_chunked_prefill").value is True
    # CTX308 judges the PyTorch backend's check, trtllm-serve's default only from TensorRT-LLM 1.0 (a v1 build
    # is a TensorRT engine): a config that names neither a release nor a backend gets no verdict, on or off
    path = tmp_path / "config.yaml"
    path.write_text(TRT_V1)
    assert run(["check", "--isolated", "--select", "CTX308", str(path)]).out == ""


TRT_V2 = """\
model_name: glm47
resources:
  accelerator: B200:4
model_cache:
  - repo_id: baseten-admin/glm-4.7-fp4
    revision: main
    use_volume: true
    volume_folder: glm47
trt_llm:
  inference_stack: v2
  build:
    checkpoint_repository:
      repo: michaelfeil/empty-model
      source: HF
  runtime:
    max_seq_len: 202752
    tensor_parallel_size: 4
    patch_kwargs:
      model_path: /app/model_cache/glm47
      max_seq_len: 8192
      kv_cache_config:
        free_gpu_memory_fraction: 0.7
        max_tokens: 400000
"""


def test_a_v2_runtime_and_its_patch_kwargs():
    result = adapt(TRT_V2, "config.yaml")
    [dep] = result.deployments
    role = dep.roles[0]
    assert dep.model.id.value == "baseten-admin/glm-4.7-fp4"  # patch_kwargs.model_path is what the engine loads
    assert role.context_length.value == 202752 and role.parallelism.tensor.value == 4
    assert role.kv_pool_tokens.value == 400000 and at(TRT_V2, role.kv_pool_tokens.source) == "400000"
    assert arg(role, "kv_cache_free_gpu_memory_fraction").value == 0.7
    assert arg(role, "enable_chunked_prefill").value is True and arg(role, "max_batch_size").value == 256
    [unknown] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert "patch_kwargs.max_seq_len (also the runtime field `max_seq_len`" in unknown.message


def test_embedding_builds_are_no_llm():
    assert [d.engine.name.value for d in adapt(TRT_V1, "config.yaml").deployments] == ["trtllm"]  # a decoder is one
    for kind in ("encoder", "encoder_bert"):
        result = adapt(TRT_V1.replace("base_model: decoder", f"base_model: {kind}"), "config.yaml")
        assert (result.deployments, result.diagnostics) == ([], [])


BROKEN = """\
resources:
  accelerator: h100:2
environment_variables: [HF_TOKEN=x]
trt_llm:
  inference_stack: v2
  build:
    checkpoint_repository: {source: HF, repo: Qwen/Qwen3-8B}
    max_seq_len: 32768
    quantization_type: fp9
  runtime:
    max_num_tokens: "8192"
    tensor_parallel_size: 0
---
model_name: x
docker_server:
  server_port: 8000
---
model_name: y
resources:
  accelerator: H100:0
docker_server:
  start_command: [vllm, serve, Qwen/Qwen3-8B]
---
model_name: z
trt_llm:
  build:
    base_model: llama
"""


def test_what_truss_refuses_is_ctx002_at_the_value(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(BROKEN)
    result = run(["check", "--isolated", "--select", "CTX002", str(path)])
    refused = ": Truss refuses this config (schema-violation)"
    assert result.code == 1
    assert result.out.replace(f"{path}:", "") == "".join(f"{line}{refused}\n" for line in (
        "2:16: CTX002 [error] resources.accelerator: 'h100' is no GPU type Truss knows (B10, T4, L4, A10G, V100, A100, "
        "A100_40GB, H100, H200, H100_40GB, B200, L40S, RTX_PRO_6000, B300, GB300; case matters)",
        "8:18: CTX002 [error] trt_llm.build.max_seq_len: `trt_llm.build.max_seq_len` may not be set with "
        "inference_stack v2 (it is `trt_llm.runtime.max_seq_len` there)",
        "9:24: CTX002 [error] trt_llm.build.quantization_type: 'fp9' is no quantization_type Truss knows (no_quant, "
        "fp8, fp8_kv, fp4, fp4_kv, fp4_mlp_only, weights_int8, weights_kv_int8, weights_int4, weights_int4_kv_int8, "
        "smooth_quant)",
        "11:21: CTX002 [error] trt_llm.runtime.max_num_tokens: `max_num_tokens` must be a whole number from 65 to "
        "131072 (written as a number, not a string)",
        "12:27: CTX002 [error] trt_llm.runtime.tensor_parallel_size: `tensor_parallel_size` must be a whole number "
        "of 1 or more (written as a number, not a string)",
        "16:3: CTX002 [error] docker_server: `start_command` is required unless `no_build` is true",
        "20:16: CTX002 [error] resources.accelerator: the GPU count '0' must be a positive whole number",
        "22:18: CTX002 [error] docker_server.start_command: must be one string, the command line "
        "(`sh -c \"vllm serve ...\"`)",
        "27:17: CTX002 [error] trt_llm.build.base_model: 'llama' was renamed to `decoder`"))


def test_neither_kubernetes_nor_compose_nor_skypilot_is_truss_and_truss_is_none_of_them():
    compose = "services:\n  llm:\n    image: vllm/vllm-openai:v0.8.4\nsecrets: {}\n"
    deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nresources: {}\ndocker_server: {}\n"
    sky = "resources: {accelerators: L4}\nrun: vllm serve Qwen/Qwen3-8B\ndocker_server: {}\n"
    for text in (compose, deployment, sky):
        assert not kinds.truss_config(parse_text(text, "x.yaml").documents[0].root)
        assert "truss" not in kinds.selected(("compose", "skypilot", "truss"), parse_text(text, "x.yaml"))
    assert "truss" in kinds.selected(("kubernetes", "akash_sdl", "truss"), parse_text(VLLM, "config.yaml"))
    assert [d.input_format for d in adapt(VLLM, "config.yaml").deployments] == ["truss"]  # nor compose, SkyPilot
    # a docker_server alone, with no other key of TrussConfig beside it, is not taken for a Truss config
    assert not kinds.truss_config(parse_text("docker_server: {start_command: x}\n", "x.yaml").documents[0].root)


def test_the_truss_modules_are_not_imported_for_a_kubernetes_file(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
                    "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.8.4\n"
                    "        args: [--model, Qwen/Qwen3-8B]\n")
    server = tmp_path / "config.yaml"
    server.write_text(VLLM)
    code = ("import sys\nfrom ctxlint.adapters import adapt_file\nfrom ctxlint.file_reader import read_path\n"
            "adapt_file(read_path(sys.argv[1]))\n"
            "print(sorted(m for m in sys.modules if m.startswith('ctxlint.adapters.truss')))\n")
    plain = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=REPO)
    assert plain.stdout == "[]\n", plain.stderr
    truss = subprocess.run([sys.executable, "-c", code, str(server)], capture_output=True, text=True, cwd=REPO)
    assert truss.stdout == "['ctxlint.adapters.truss', 'ctxlint.adapters.truss_resources']\n", truss.stderr


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**7) | st.text(max_size=12),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=3), max_leaves=8)
_PLACES = (("docker_server",), ("docker_server", "start_command"), ("base_image",), ("base_image", "image"),
           ("resources",), ("resources", "accelerator"), ("resources", "instance_type"), ("resources", "node_count"),
           ("environment_variables",), ("secrets",), ("model_cache",), ("weights",), ("model_metadata",),
           ("trt_llm",), ("trt_llm", "inference_stack"), ("trt_llm", "build"), ("trt_llm", "build", "max_seq_len"),
           ("trt_llm", "build", "checkpoint_repository"), ("trt_llm", "build", "quantization_type"),
           ("trt_llm", "runtime"), ("trt_llm", "runtime", "patch_kwargs"),
           ("trt_llm", "runtime", "kv_cache_free_gpu_mem_fraction"), ("trt_llm", "runtime", "enable_chunked_context"))


@settings(max_examples=250, deadline=None)
@given(st.sampled_from([VLLM, TRT_V1, TRT_V2]), st.lists(st.tuples(st.sampled_from(_PLACES), _JSON), min_size=1,
                                                          max_size=3))
def test_any_value_anywhere_gives_findings_with_a_place_never_an_exception(base, changes):
    data = yaml.safe_load(base)
    for place, value in changes:
        node = data
        for key in place[:-1]:
            node = node.setdefault(key, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node[place[-1]] = value
    result = adapt_file(parse_text(textwrap.dedent(yaml.safe_dump(data, sort_keys=False)), "config.yaml"))
    assert all(d.source.line >= 1 and d.source.col >= 1 for d in result.diagnostics)
    assert all(d.input_format == "truss" for d in result.deployments)


def test_a_count_that_passes_isdigit_but_is_no_ascii_number_is_refused_not_a_crash(tmp_path):
    # review: `H100:²` passed str.isdigit and int() raised (an internal error)
    path = tmp_path / "config.yaml"
    path.write_text('model_name: m\nresources:\n  accelerator: "H100:\u00b2"\ndocker_server:\n'
                    '  start_command: vllm serve Qwen/Qwen3-8B\n  server_port: 8000\n')
    result = run(["check", "--isolated", str(path)])
    assert "the GPU count '\u00b2' must be a positive whole number" in result.out and "internal error" not in result.err
