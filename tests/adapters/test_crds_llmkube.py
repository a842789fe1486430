"""LLMKube's InferenceService + Model (inference.llmkube.dev), read as the operator builds the engine's command line.

The fixtures are hand-written in the shape sweep k31 met in homelab GitOps repos: Tanguille/cluster@7caefd26
(kubernetes/apps/ai/llmkube/models/qwen35-2b.yaml: a GGUF URL on llama.cpp with contextSize and parallelSlots;
qwen38-27b-vllm.yaml: the vllm runtime with vllmConfig), jhart99/home-ops@aaed83c3 (qwen36-27B-q4.yaml: GPUs
claimed through DRA resourceClaims, count 0) and janpuc/home-ops@7976a3e9, tscibilia/home-ops@959aefa0.
"""
from __future__ import annotations

from ctxlint.physics.gaudi import counted_path
from tests.adapters.kit import adapt, arg, at

LLAMACPP = """\
apiVersion: inference.llmkube.dev/v1alpha1
kind: Model
metadata:
  name: qwen
spec:
  source: https://huggingface.co/unsloth/Qwen3.6-27B-GGUF/resolve/0123abc/Qwen3.6-27B-UD-Q4_K_XL.gguf
  hardware:
    accelerator: cuda
    gpu:
      enabled: true
      count: 2
      vendor: nvidia
---
apiVersion: inference.llmkube.dev/v1alpha1
kind: InferenceService
metadata:
  name: qwen
spec:
  modelRef: qwen
  image: ghcr.io/ggml-org/llama.cpp:server-cuda-b9917
  replicas: 1
  contextSize: 65536
  parallelSlots: 2
  flashAttention: true
  cacheTypeK: q8_0
  cacheTypeV: q8_0
  extraArgs:
    - --alias
    - qwen
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-L40S
"""


def test_llamacpp_service_reads_the_fields_the_operator_renders_as_flags():
    [dep] = adapt(LLAMACPP).deployments
    assert dep.input_format == "llmkube" and dep.engine.name.value == "llamacpp"
    assert dep.engine.version.value == "b9917"
    role = dep.roles[0]
    # --ctx-size 65536 with --parallel 2: llama.cpp gives each slot 32,768
    assert role.context_length.value == 32768 and at(LLAMACPP, role.context_length.source) == "65536"
    assert arg(role, "n_parallel").value == 2 and at(LLAMACPP, arg(role, "n_parallel").source) == "2"
    assert arg(role, "cache_type_k").value == "q8_0" and str(arg(role, "n_gpu_layers").value) == "99"
    assert role.accelerators.count.value == 2 and role.accelerators.resource == "nvidia.com/gpu"
    assert role.accelerators.type.value == "L40S"
    # the operator renames the file it downloads: the model is the source's repository file
    assert dep.model.id.value == "unsloth/Qwen3.6-27B-GGUF/Qwen3.6-27B-UD-Q4_K_XL.gguf"
    assert dep.model.id.source.line == 6


def test_extra_args_win_over_the_fields_the_operator_would_add():
    # runtime_args.hasMatchingExtraArg: an `--parallel` of extraArgs stops parallelSlots' own
    text = LLAMACPP.replace("    - --alias\n", "    - --parallel\n    - \"8\"\n    - --alias\n")
    [dep] = adapt(text).deployments
    assert arg(dep.roles[0], "n_parallel").value == 8 and dep.roles[0].context_length.value == 8192


def test_gpus_claimed_through_dra_are_present_but_not_counted():
    # count 0 with resourceClaims: the operator offloads the layers to a GPU (hasGPUPresent) it does not count
    text = LLAMACPP.replace("      count: 2\n", "      count: 0\n      resourceClaims:\n        - name: gpu\n")
    [dep] = adapt(text).deployments
    role = dep.roles[0]
    assert role.accelerators.count is None and str(arg(role, "n_gpu_layers").value) == "99"


def test_an_amd_igpu_on_a_generic_device_resource_keeps_its_vendor():
    text = LLAMACPP.replace("      vendor: nvidia\n", "      vendor: amd\n      runtime: vulkan\n"
                            "      resourceName: squat.ai/dri\n").replace("      count: 2\n", "      count: 1\n")
    text = text.replace("  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-L40S\n", "")
    [dep] = adapt(text).deployments
    role = dep.roles[0]
    assert role.accelerators.resource == "squat.ai/dri" and role.vendor.value == "amd"


VLLM = """\
apiVersion: inference.llmkube.dev/v1alpha1
kind: Model
metadata:
  name: llama
spec:
  source: hf://meta-llama/Llama-3.1-8B-Instruct@5206a32e
  hardware:
    gpu:
      count: 2
---
apiVersion: inference.llmkube.dev/v1alpha1
kind: InferenceService
metadata:
  name: llama
spec:
  modelRef: llama
  runtime: vllm
  parallelSlots: 6
  vllmConfig:
    maxModelLen: 32768
    kvCacheDtype: auto
    gpuMemoryUtilization: 0.85
    enablePrefixCaching: true
"""


def test_vllm_service_takes_the_gpu_count_as_its_tensor_parallel_size():
    [dep] = adapt(VLLM).deployments
    role = dep.roles[0]
    assert dep.engine.name.value == "vllm" and dep.engine.version is None  # the operator's default image
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert role.context_length.value == 32768 and at(VLLM, role.context_length.source) == "32768"
    assert role.parallelism.tensor.value == 2 and role.accelerators.count.value == 2
    assert arg(role, "max_num_seqs").value == 6 and arg(role, "gpu_memory_utilization").value == 0.85
    assert role.arg("kv_cache_dtype") is None  # `auto` adds no flag


def test_runtimes_not_read_and_models_of_other_files():
    assert adapt(VLLM.replace("runtime: vllm", "runtime: sglang")).deployments == []
    service = VLLM.split("---\n", 1)[1]
    [dep] = adapt(service).deployments  # the Model is in another file: no model, nothing guessed
    assert dep.model is None or dep.model.id is None
    assert dep.roles[0].accelerators.count is None


def test_vllm_cpu_offload_gb_is_passed_with_a_gpu():
    # runtime_vllm_args.appendCPUOffloadGB: vllmConfig.cpuOffloadGB -> --cpu-offload-gb when the service has a GPU
    # (defilantech/LLMKube@907ac8d8): the weights that stay in host memory are no GPU's need
    text = VLLM.replace("    gpuMemoryUtilization: 0.85\n", "    gpuMemoryUtilization: 0.85\n    cpuOffloadGB: 8\n")
    [dep] = adapt(text).deployments
    found = arg(dep.roles[0], "cpu_offload_gb")
    assert found is not None and found.value == 8 and at(text, found.source) == "8"
    cpu = text.replace("  hardware:\n    gpu:\n      count: 2\n", "")
    [dep] = adapt(cpu).deployments  # no GPU: the operator skips the flag
    assert dep.roles[0].arg("cpu_offload_gb") is None


def test_llamacpp_sharding_strategy_is_the_split_mode():
    # runtime_llamacpp.go + gpu_sharding.resolveSplitMode: with more than one GPU the operator passes
    # --split-mode from hardware.gpu.sharding.strategy (none; row or tensor -> row; else layer): `none` keeps
    # the whole model on one GPU, not a pipeline over the two
    text = LLAMACPP.replace("      vendor: nvidia\n", "      vendor: nvidia\n      sharding:\n        strategy: none\n")
    [dep] = adapt(text).deployments
    mode = arg(dep.roles[0], "split_mode")
    assert mode is not None and mode.value == "none" and at(text, mode.source) == "none"
    assert dep.roles[0].parallelism.pipeline is None or dep.roles[0].parallelism.pipeline.value == 1
    [dep] = adapt(LLAMACPP).deployments  # no sharding: layer, llama.cpp's own default, a pipeline of the two
    assert str(arg(dep.roles[0], "split_mode").value) == "layer" and dep.roles[0].parallelism.pipeline.value == 2
    row = text.replace("strategy: none", "strategy: tensor")
    [dep] = adapt(row).deployments
    assert str(arg(dep.roles[0], "split_mode").value) == "row"


def test_a_partitioned_gpu_share_is_a_mig_slice():
    # gpu_sharing.resolvePartitioned: resources.gpuSharing {mode: partitioned, profile} requests
    # nvidia.com/mig-<profile>, one slice: the engine gets the slice's memory, not the node selector's whole card
    text = LLAMACPP.replace("      count: 2\n", "      count: 1\n").replace(
        "nvidia.com/gpu.product: NVIDIA-L40S", "nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB").replace(
        "  replicas: 1\n", "  replicas: 1\n  resources:\n    gpuSharing:\n      mode: partitioned\n"
        "      profile: 3g.40gb\n")
    [dep] = adapt(text).deployments
    role = dep.roles[0]
    assert role.accelerators.resource == "nvidia.com/mig-3g.40gb"
    assert role.accelerators.type.value == "A100-80GB-MIG-3g.40gb" and at(text, role.accelerators.type.source) == "3g.40gb"
    # exclusive (the default) keeps the vendor's resource and the whole card
    [dep] = adapt(text.replace("mode: partitioned", "mode: exclusive")).deployments
    assert dep.roles[0].accelerators.resource == "nvidia.com/gpu"


def test_llamacpp_rope_scaling_and_host_placement_fields_are_flags():
    # runtime_llamacpp.go BuildArgs + runtime_llamacpp_args.go: ropeScaling -> --rope-scaling/--rope-scale/
    # --yarn-orig-ctx (the whole block skipped when extraArgs has --rope-scaling), moeCPUOffload -> --cpu-moe,
    # moeCPULayers -> --n-cpu-moe (above 0), tensorOverrides -> one --override-tensor each
    text = LLAMACPP.replace("  parallelSlots: 2\n", "  parallelSlots: 2\n  ropeScaling:\n    type: yarn\n"
                            "    factor: \"4\"\n    originalContext: 32768\n  moeCPUOffload: true\n"
                            "  moeCPULayers: 12\n  tensorOverrides:\n    - exps=CPU\n")
    [dep] = adapt(text).deployments
    role = dep.roles[0]
    assert arg(role, "rope_scaling").value == "yarn" and at(text, arg(role, "rope_scaling").source) == "yarn"
    assert float(arg(role, "rope_scale").value) == 4 and arg(role, "yarn_orig_ctx").value == 32768
    assert arg(role, "cpu_moe").value is True and arg(role, "n_cpu_moe").value == 12
    assert "exps=CPU" in str(arg(role, "override_tensor").value)
    pinned = text.replace("    - --alias\n", "    - --rope-scaling\n    - linear\n    - --alias\n")
    [dep] = adapt(pinned).deployments  # extraArgs' --rope-scaling: none of the block's flags
    assert arg(dep.roles[0], "rope_scaling").value == "linear" and dep.roles[0].arg("rope_scale") is None


def test_a_gpu_count_of_a_service_whose_model_is_elsewhere_names_no_vendor():
    # apiutil.GPUResourceName takes the resource from the Model's hardware.gpu (resourceName, vendor): with the
    # Model in another file it is not known, so the count is no nvidia.com/gpu count (CTX208 lists every vendor)
    service = VLLM.split("---\n", 1)[1].replace("  runtime: vllm\n", "  runtime: vllm\n  resources:\n    gpu: 1\n")
    [dep] = adapt(service).deployments
    role = dep.roles[0]
    assert role.accelerators.count.value == 1 and role.accelerators.resource is None
    assert not counted_path(role).endswith('["nvidia.com/gpu"]')


def test_llamacpp_model_is_the_first_of_the_model_files():
    # Model.spec.files: llama.cpp is handed the first file staged from the source (defilantech/LLMKube@907ac8d8
    # api/v1alpha1/model_types.go Files; runtime_llamacpp.go resolveStagedCompanions): a GGUF repository's
    # quantization is that file's, so a 70B Q8_0 is no longer checked as the repository with no file named
    text = LLAMACPP.replace(
        "  source: https://huggingface.co/unsloth/Qwen3.6-27B-GGUF/resolve/0123abc/Qwen3.6-27B-UD-Q4_K_XL.gguf\n",
        "  source: hf://bartowski/Llama-3.3-70B-Instruct-GGUF@main\n  files:\n"
        "    - Llama-3.3-70B-Instruct-Q8_0.gguf\n")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "bartowski/Llama-3.3-70B-Instruct-GGUF/Llama-3.3-70B-Instruct-Q8_0.gguf"
    assert at(text, dep.model.id.source) == "Llama-3.3-70B-Instruct-Q8_0.gguf"
    # vLLM loads the repository (a directory-oriented runtime): the model stays the repository
    vllm = VLLM.replace("  source: hf://meta-llama/Llama-3.1-8B-Instruct@5206a32e\n",
                        "  source: hf://meta-llama/Llama-3.1-8B-Instruct@5206a32e\n  files:\n    - model.safetensors\n")
    [dep] = adapt(vllm).deployments
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    # a huggingface.co repository URL is its repository (source.go extractHFRepoFromURL)
    page = VLLM.replace("hf://meta-llama/Llama-3.1-8B-Instruct@5206a32e",
                        "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/tree/main")
    assert adapt(page).deployments[0].model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
