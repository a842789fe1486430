"""Engines on Intel Gaudi: no pool and no memory need from the CUDA rules (vLLM's HPU worker sizes its KV cache
from the memory free after its profile run, less VLLM_GRAPH_RESERVED_MEM), and a KubeAI resource profile of the
operator's own (OPEA's `gaudi-for-text-generation`) is no device name. Before, the profile's name was an unknown
accelerator, a Gaudi pod got a CUDA-rule memory need, and one with a device stated a CUDA-rule pool."""
from __future__ import annotations

from helpers import run

POD = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: srv}}
spec:
  template:
    spec:
      {selector}
      containers:
      - name: engine
        image: {image}
        args: {args}
        resources: {{limits: {{{resource}: 1}}}}
"""
VLLM_ARGS = '["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32768"]'
TGI_ARGS = '["--model-id", "Qwen/Qwen2.5-7B-Instruct", "--max-total-tokens", "4096", "--max-input-tokens", "2048"]'
HPU_VLLM = ("vLLM's HPU worker sizes its KV cache from the memory free after its profile run x gpu_memory_utilization "
            "x (1 - VLLM_GRAPH_RESERVED_MEM, 0.1 by default), not as on CUDA, and its profile run's peak is not known "
            "here; state the KV memory the engine logs (available_kv_gib); capacity checks skip these roles "
            "(capacity-not-derivable)\n")


def check(tmp_path, text: str) -> str:
    path = tmp_path / "srv.yaml"
    path.write_text(text)
    return run(["check", "--isolated", "-q", str(path)]).out.replace(str(path), "srv.yaml")


def test_vllm_on_a_gaudi_resource_gives_no_cuda_memory_need(tmp_path):
    out = check(tmp_path, POD.format(selector="", image="opea/vllm-gaudi:1.22.0", args=VLLM_ARGS,
                                     resource="habana.ai/gaudi"))
    assert out == ("srv.yaml:9:9: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator "
                   "type (or available_kv_gib) is given (1 per replica, type unknown); no memory need can be given "
                   "for 32,768 tokens: the engine runs on Intel Gaudi (its habana.ai/gaudi devices), and " + HPU_VLLM)


def test_a_device_stated_for_a_gaudi_pod_gives_no_cuda_pool(tmp_path):
    out = check(tmp_path, POD.format(selector="nodeSelector: {gpu-type: h100}", image="opea/vllm-gaudi:1.22.0",
                                     args=VLLM_ARGS, resource="habana.ai/gaudi"))
    assert out == ("srv.yaml:7:32: CTX208 [info] KV pool of unified not declared and not derivable: the engine runs "
                   "on Intel Gaudi (its habana.ai/gaudi devices), and " + HPU_VLLM)


def test_tgi_gaudi_image_without_a_resource(tmp_path):
    out = check(tmp_path, POD.format(selector="", image="ghcr.io/huggingface/tgi-gaudi:2.0.6", args=TGI_ARGS,
                                     resource="cpu"))
    assert out == ("srv.yaml:9:9: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator "
                   "type (or available_kv_gib) is given; no memory need can be given for 4,096 tokens: the engine "
                   "runs on Intel Gaudi (as ghcr.io/huggingface/tgi-gaudi:2.0.6 says), and ctxlint models TGI's memory "
                   "on CUDA devices only; state the KV memory the engine logs (available_kv_gib); capacity checks "
                   "skip these roles (capacity-not-derivable)\n")


def test_a_stated_kv_memory_still_sizes_a_gaudi_pool(tmp_path):
    text = POD.format(selector="", image="opea/vllm-gaudi:1.22.0", args=VLLM_ARGS, resource="habana.ai/gaudi")
    text = text.replace("metadata: {name: srv}", "metadata: {name: srv, annotations: {ctxlint.io/available-kv-gib: '1'}}")
    assert "CTX201" in check(tmp_path, text)  # 1 GiB holds 18,720 tokens of Qwen2.5-7B, not 32,768


KUBEAI = """apiVersion: kubeai.org/v1
kind: Model
metadata:
  name: qwen-gaudi
spec:
  url: hf://Qwen/Qwen2.5-7B-Instruct
  engine: VLLM
  args: [--max-model-len=2048]
  resourceProfile: {profile}
"""


def test_a_kubeai_profile_of_the_operators_own_is_no_device(tmp_path):
    out = check(tmp_path, KUBEAI.format(profile="gaudi-for-text-generation:1"))
    assert out.splitlines()[1] == (
        "srv.yaml:9:20: CTX008 [info] resourceProfile gaudi-for-text-generation is no KubeAI default profile: its "
        "devices are the `resourceProfiles.gaudi-for-text-generation` of the KubeAI chart's values, which this file "
        "does not hold, so neither the device nor the count is known (state the device with `default-accelerator:` "
        "in .ctxlint.yaml) (unresolved-value)")
    assert "unknown accelerator" not in out and "no accelerator type (or available_kv_gib) is given;" in out
    # KubeAI's own profiles still name their device and count
    assert check(tmp_path, KUBEAI.format(profile="nvidia-gpu-l4:1")) == ""


def test_a_gaudi_variable_on_an_nvidia_pod_leaves_the_cuda_checks(tmp_path):
    # the nvidia.com/gpu resource says whose devices the pod gets, as need_advice reads it: a stray PT_HPU_* variable
    # hid the weights' CTX203 on the default-accelerator's L4 (and named Gaudi in CTX208 without one)
    text = POD.format(selector="", image="vllm/vllm-openai:v0.10.1", resource="nvidia.com/gpu",
                      args=VLLM_ARGS.replace("Qwen2.5-7B", "Qwen2.5-32B")).replace(
        "        resources:", "        env: [{name: PT_HPU_LAZY_MODE, value: '0'}]\n        resources:")
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: l4\n")
    (tmp_path / "srv.yaml").write_text(text)
    out = run(["check", "-q", str(tmp_path / "srv.yaml")]).out.replace(str(tmp_path / "srv.yaml"), "srv.yaml")
    assert out == ("srv.yaml:9:9: CTX203 [error] 61.03 GiB > 21.95 GiB: the weights of Qwen/Qwen2.5-32B-Instruct per "
                   "GPU (tensor 1 x pipeline 1) exceed the memory of one L4, before any KV cache. Use at least 3 GPUs "
                   "with tensor/pipeline parallelism to match, larger accelerators, or a quantized checkpoint "
                   "(weights-exceed-memory)\n")
    assert "Intel Gaudi" not in check(tmp_path, text)


def test_a_kubeai_profile_name_with_blanks_or_none_is_read_without_a_crash(tmp_path):
    # KubeAI looks the name up as written (strings.Split(s, ":")[0]): `nvidia-gpu-l4 ` is no default profile of its
    # own; `:1` names none. Both stopped the run with a KeyError (internal error)
    out = check(tmp_path, KUBEAI.format(profile='"nvidia-gpu-l4 :1"'))
    assert out.splitlines()[1] == (
        "srv.yaml:9:20: CTX008 [info] resourceProfile nvidia-gpu-l4  is no KubeAI default profile: its devices are the "
        "`resourceProfiles.nvidia-gpu-l4 ` of the KubeAI chart's values, which this file does not hold, so neither the "
        "device nor the count is known (state the device with `default-accelerator:` in .ctxlint.yaml) "
        "(unresolved-value)")
    out = check(tmp_path, KUBEAI.format(profile='":1"'))
    assert out.startswith("srv.yaml:6:3: CTX208 [info] KV pool of unified not declared and not derivable: no "
                          "accelerator type (or available_kv_gib) is given; holding one request of 2,048 tokens needs")
    assert "internal error" not in out and len(out.splitlines()) == 1
