"""The memory need CTX208 states when a role names no device (physics/needs.py)."""
from __future__ import annotations

import json
import re

from helpers import run

from ctxlint.physics.needs import MemoryNeed

LLAMACPP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwq}
spec:
  template:
    spec:
      containers:
        - name: server
          image: ghcr.io/ggml-org/llama.cpp:server-cuda
          args: ["-m", "/models/Qwen_QwQ-32B-Q4_K_M.gguf", "-c", "16000", "-ngl", "99"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _need(out: str) -> float:
    found = re.search(r"needs >= ([\d.]+)", out)
    assert found, out
    return float(found.group(1))


def test_llamacpp_need_counts_the_weights_not_only_the_cells(tmp_path):
    # llama.cpp reserves all ctx_size cells up front and reports a shortfall only as an error: the
    # need was 1.1 GiB whatever the model (the search took an unfit estimate for a fit). QwQ-32B at
    # Q4_K_M holds about 18.4 GiB of weights, plus 16,000 cells of KV.
    path = tmp_path / "qwq.yaml"
    path.write_text(LLAMACPP)
    out = run(["check", str(path), "--select", "CTX208"]).out
    assert 19.0 < _need(out) < 26.0, out
    assert "L40S yes" in out and "A100-40GB yes" in out
    assert _need(run(["check", "-", "--stdin-filename", "b.yaml", "--select", "CTX208"],
                     stdin=LLAMACPP.replace('"16000"', '"64000"').encode()).out) > _need(out)


def test_need_text_when_only_the_optimistic_end_fits():
    # Found by the fuzz smoke test: a point estimate above 2 TiB with a band bottom below it.
    need = MemoryNeed(context=131072, least=636.9, point=None, most=None, layout="TP 1")
    assert need.text() == ("holding one request of 131,072 tokens needs >= 636.9 (the estimate itself does not fit "
                           "even 2 TiB) GiB per GPU at TP 1")


def _ctx208_texts(paths, fresh: bool):
    """Every CTX208 message of a check of `paths`; `fresh`: nothing remembered between roles."""
    from ctxlint.engine import lint_paths
    from ctxlint.physics import needs

    original = needs._need_and_verdicts

    def forgetful(*args):
        needs._NEEDS.clear()
        return original(*args)

    needs._NEEDS.clear()
    if fresh:
        needs._need_and_verdicts = forgetful
    try:
        report = lint_paths([str(p) for p in paths])
    finally:
        needs._need_and_verdicts = original
    return [(f.file, f.line, f.message) for f in report.findings if f.rule == "CTX208"]


def test_remembered_needs_are_the_searched_ones(tmp_path):
    # Roles that differ in what the search reads (context, layout, the model's window) and in what
    # only the text says (the GPU count), and roles that repeat, in one directory.
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    variants = []
    for k, (ctx, tp, gpus) in enumerate([(32768, 1, 1), (32768, 1, 1), (32768, 2, 2), (65536, 1, 1),
                                         (32768, 1, 4), (131072, 2, 2), (32768, 1, 1)]):
        path = tmp_path / f"d{k}.yaml"
        path.write_text(LLAMACPP.replace("qwq", f"qwq{k}").replace('"16000"', f'"{ctx}"')
                        .replace('"99"]', f'"99", "--tensor-split", "{",".join(["1"] * tp)}"]')
                        .replace("nvidia.com/gpu: 1", f"nvidia.com/gpu: {gpus}"))
        variants.append(path)
    paths = variants + sorted((root / "samples").rglob("*.yaml"))
    remembered = _ctx208_texts(paths, fresh=False)
    assert remembered == _ctx208_texts(paths, fresh=True)
    assert len({m for _, _, m in remembered}) >= 5  # the variants read differently, and were compared
    # Keyed by the variant's own path: a sample's path may contain "/d" too, and where the clone sits
    # decides whether the samples sort before or after tmp_path.
    by_variant = {Path(f).resolve(): m for f, _, m in remembered}
    texts = [by_variant[p.resolve()] for p in variants]
    assert texts[0] == texts[1] == texts[6] and texts[0] != texts[3] and texts[0] != texts[4]


def test_remembered_needs_on_the_real_corpus():
    import pytest
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "real"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is not beside this checkout")
    remembered = _ctx208_texts([corpus], fresh=False)
    assert len(remembered) > 50 and remembered == _ctx208_texts([corpus], fresh=True)


def test_a_promise_that_differs_only_in_its_context_is_searched_again():
    # The context is part of the remembered key even where the engine arguments are the same (a
    # window advertised above the engine's own context).
    from ctxlint.capacity import weights_of
    from ctxlint.engine import lint_text
    from ctxlint.model import Val
    from ctxlint.physics import needs
    from ctxlint.records import replace

    report = lint_text(LLAMACPP, "qwq.yaml")
    dep = report.deployments[0]
    role = dep.roles[0]
    texts = []
    for ctx in (16000, 32000, 16000):
        texts.append(needs.needs_text(dep, replace(role, context_length=Val(ctx, role.source)), dep.arch,
                                      weights_of(dep, role, dep.resolution)))
    assert texts[0] == texts[2] != texts[1]
    assert "16,000 tokens" in texts[0] and "32,000 tokens" in texts[1]


SGLANG_DECLARED_POOL = """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.2
    command: python -m sglang.launch_server --model-path MODEL --max-total-tokens 8192
    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}
"""


def test_a_declared_pool_against_an_unknown_default_context_is_said(tmp_path):
    # Cloud-Linuxer/Qwen docker-compose.sglang.yml: --max-total-tokens, no --context-length, a model
    # outside the catalog. --max-total-tokens only caps the pool SGLang profiles (sweep 30), and neither that
    # pool nor the engine's default context (the model's own limit) is known: a clean run would pass the file
    # unchecked, so the note says so.
    path = tmp_path / "compose.yaml"
    path.write_text(SGLANG_DECLARED_POOL.replace("MODEL", "example-org/uncatalogued-4b"))
    result = run(["check", str(path), "--isolated"])
    assert result.out == (
        f"{path}:4:58: CTX208 [info] KV pool of unified not derivable (--max-total-tokens 8,192 only caps the pool "
        "the engine profiles, which may be smaller): model 'example-org/uncatalogued-4b' is not in the built-in "
        "catalog: run `ctxlint models lock` to record its architecture from the Hugging Face Hub (`pip install "
        "'ctxlint[hub]'`), or add it under `models:` in .ctxlint.yaml; capacity checks skip these roles "
        "(capacity-not-derivable)\n")
    # a context length that is written but not known: the adapter's note says so, once per deployment
    path.write_text(SGLANG_DECLARED_POOL.replace("MODEL", "example-org/uncatalogued-4b --context-length ${LEN}"))
    out = run(["check", str(path), "--isolated"]).out
    assert out.count("CTX008") == 1 and "--context-length ${LEN}" in out
    # stated at or below the cap: the pool under the cap is still not known
    path.write_text(SGLANG_DECLARED_POOL.replace("MODEL", "example-org/uncatalogued-4b --context-length 4096"))
    assert " CTX208 [info] KV pool of unified not derivable (--max-total-tokens 8,192 only caps " in \
        run(["check", str(path), "--isolated", "--format", "concise"]).out
    # a promise above the cap cannot fit whatever the pool under it
    path.write_text(SGLANG_DECLARED_POOL.replace("MODEL", "Qwen/Qwen3-8B"))
    assert run(["check", str(path), "--isolated", "--format", "concise", "--select", "CTX008,CTX201"]).out.startswith(
        f"{path}:4:58: CTX201 [error] 40,960 > 8,192")


def test_a_model_ctxlint_does_not_model_gets_no_memory_need_not_a_shortfall(tmp_path):
    # llm-d's DeepSeek-V4 guide: the catalog marks its compressed attention as not modelled, and the
    # search, finding no size that holds it, said "does not fit even 2 TiB per GPU" (weights of 4 GPUs
    # at FP8 fit easily); a device would not help either, so the advice is the engine's own figure
    path = tmp_path / "dsv4.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: dsv4}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.23.0
          command: [vllm, serve, deepseek-ai/DeepSeek-V4-Flash, --data-parallel-size, "4", --max-model-len, "4096"]
          resources: {limits: {nvidia.com/gpu: "4"}}
""")
    out = run(["check", str(path), "--isolated"]).out
    assert "does not fit" not in out and "state the device" not in out
    assert ("(4 per replica, type unknown); no memory need can be given for 4,096 tokens: "
            "deepseek-ai/DeepSeek-V4-Flash: DeepSeek-V4's compressed attention is sized on vLLM as the releases "
            "read lay it out; here vLLM's FlashMLA layout for DeepSeek-V4 asserts an fp8 KV cache; --kv-cache-dtype "
            "auto was not read; state the pool the engine logs") in out


def test_the_devices_a_need_is_judged_on_follow_the_pods_resource(tmp_path):
    # sweep: an amd.com/gpu pod was told "L4 yes, ...; state the device (a nodeSelector such as
    # nvidia.com/gpu.product ...)"; a Gaudi pod the same, though the catalog has no Gaudi
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      containers:
      - name: v
        image: rocm/vllm:latest
        command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "32768"]
        resources: {limits: {RESOURCE: 1}}
"""
    path = tmp_path / "d.yaml"
    path.write_text(text.replace("RESOURCE", "amd.com/gpu"))
    out = run(["check", str(path), "--isolated"]).out
    assert "(MI210 yes, MI250X-GCD yes, MI300X yes, MI325X yes, MI355X yes); state the device (a node selector" in out
    assert "L4" not in out and "nvidia.com" not in out
    path.write_text(text.replace("RESOURCE", "habana.ai/gaudi"))
    out = run(["check", str(path), "--isolated"]).out
    # a Gaudi pod gets no need from the CUDA arithmetic, nor any device list (physics/gaudi.py)
    assert ("no memory need can be given for 32,768 tokens: the engine runs on Intel Gaudi (its habana.ai/gaudi "
            "devices), and vLLM's HPU worker sizes its KV cache") in out and "L4" not in out
    # sweep 35: an nvidia.com/gpu pod was told "MI300X maybe" beside the NVIDIA cards it can be
    path.write_text(text.replace("RESOURCE", "nvidia.com/gpu").replace("rocm/vllm", "vllm/vllm-openai"))
    out = run(["check", str(path), "--isolated"]).out
    devices = "L4 maybe, A10G maybe, L40S yes, A100-40GB yes, A100-SXM4-80GB yes, H100-SXM-80GB yes, H200 yes, B200 yes"
    assert f"({devices});" in out and "MI300X" not in out
    path.write_text(text.replace("RESOURCE", "nvidia.com/gpu"))
    assert "GiB per GPU at TP 1 (L4 " in run(["check", str(path), "--isolated"]).out



def test_an_intel_xe_gpu_pod_counts_its_cards_and_is_given_no_nvidia_list(tmp_path):
    # sweep k31: Aviator-Coding/home-ops@ae0124b7 kubernetes/apps/ai/vllm/app/helmrelease.yaml runs llama.cpp's
    # SYCL image on an Arc B70 with `gpu.intel.com/xe: 1` (Intel's plugin names a card by its xe kernel driver):
    # the card was not counted and the need was judged on "L4 maybe, ..., MI300X yes"
    path = tmp_path / "d.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      containers:
      - name: v
        image: ghcr.io/ggml-org/llama.cpp:server-intel
        args: [-hf, Qwen/Qwen2.5-7B-Instruct-GGUF, --ctx-size, "32768", -ngl, "99"]
        resources: {limits: {gpu.intel.com/xe: 2}}
""")
    out = run(["check", str(path), "--isolated"]).out
    assert "(2 per replica, type unknown)" in out and "L4" not in out and "MI300X" not in out
    assert "defined under `accelerators:` with its memory_gib" in out
    # the resource alone says Intel: an image that names no vendor (llama.cpp's Vulkan build) gets no NVIDIA list
    path.write_text(path.read_text().replace("server-intel", "server-vulkan"))
    out = run(["check", str(path), "--isolated"]).out
    assert "(2 per replica, type unknown)" in out and "L4" not in out and "MI300X" not in out

PD_TP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: q-prefill}
spec:
  template:
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.5
        command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-32B,
                  --disaggregation-mode, prefill, --tp-size, "4"]
        resources: {limits: {nvidia.com/gpu: "4"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: q-decode}
spec:
  template:
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.5
        command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-32B,
                  --disaggregation-mode, decode, --tp-size, "2"]
        resources: {limits: {nvidia.com/gpu: "2"}}
"""


def test_each_role_is_told_its_own_need(tmp_path):
    # sweep 11 (sgl-project/rbg's pd-disagg example): one CTX208 for prefill and decode gave the prefill's TP 4
    # figure and device list ("A100-40GB yes") for a decode at TP 2 that an A100-40GB cannot hold, while the audit
    # said the decode's figure. Each role's need is said at its own line; the audit keeps the larger.
    path = tmp_path / "pd.yaml"
    path.write_text(PD_TP)
    lines = run(["check", str(path), "--select", "CTX208"]).out.splitlines()
    prefill, decode = (ln for ln in lines if "CTX208" in ln)
    assert ":8:9: " in prefill and "KV pool of prefill not declared" in prefill and "at TP 4" in prefill
    assert ":21:9: " in decode and "KV pool of decode not declared" in decode and "at TP 2" in decode
    assert "A100-40GB no" in decode and _need(decode) > _need(prefill)
    audit = run(["audit", str(path), "--format", "csv"]).out
    assert f"needs >= {_need(decode):g} GiB/GPU" in audit


CPU = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: cpu}}
spec:
  template:
    spec:
      containers:
      - name: e
        image: {image}
        env:
        - {{name: MODEL_ID, value: Qwen/Qwen3-8B}}
        args: [{args}]
"""


def test_a_cpu_build_is_told_its_kv_memory_is_host_memory_not_given_gpus(tmp_path):
    # sweep 11 (opea-project/GenAIInfra's rendered manifests): TGI's intel-cpu build and OPEA's opea/vllm (vLLM's
    # Dockerfile.cpu) with no accelerator were told "needs >= N GiB per GPU (L4 yes, A10G yes, ...)"
    for image, args in (("ghcr.io/huggingface/text-generation-inference:2.4.0-intel-cpu", ""),
                        ("opea/vllm:latest", "--model, Qwen/Qwen3-8B, --max-model-len, '8192'"),
                        ("ghcr.io/ggml-org/llama.cpp:server", "-hf, Qwen/Qwen3-8B-GGUF, -c, '8192'")):
        path = tmp_path / "cpu.yaml"
        path.write_text(CPU.format(image=image, args=args))
        out = run(["check", str(path), "--select", "CTX208"]).out
        assert f"the engine runs on the CPU ({image} is a CPU build and no accelerator is requested)" in out, out
        assert "L4" not in out and ":9:16: CTX208" in out
        row = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"][0]
        assert row["why_unknown"] == "CPU engine: KV memory not stated"
    # review: llama.cpp's CUDA 13 tags name their backend too; `cpu` in any part of the image's path counts
    from ctxlint.engines.image_builds import is_cpu_build
    assert not is_cpu_build("ghcr.io/ggml-org/llama.cpp:server-cuda13")
    assert is_cpu_build("registry.example.com/cpu/vllm-openai:v1")
    # with a GPU requested the image is no CPU build's container: the devices are listed as before
    path.write_text(CPU.format(image="vllm/vllm-openai-cpu:v0.10.1", args="--model, Qwen/Qwen3-8B")
                    + "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    assert "L4" in run(["check", str(path), "--select", "CTX208"]).out


VENDOR_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: x}}
spec:
  template:
    spec:
      containers:
      - name: v
        image: {image}
        command: [vllm, serve, Qwen/Qwen3-8B, --max-model-len, "8192"]
"""
_NO_RESOURCE = ("KV pool of unified not declared and not derivable: no accelerator type (or available_kv_gib) is "
                "given; holding one request of 8,192 tokens needs >= ")
_GAUDI = ("KV pool of unified not declared and not derivable: no accelerator type (or available_kv_gib) is given; "
          "no memory need can be given for ")
_OTHER = ("state the device (`default-accelerator:` in .ctxlint.yaml, defined under `accelerators:` with its "
          "memory_gib when the catalog lacks it); capacity checks skip these roles (capacity-not-derivable)")


def test_the_vendor_an_image_or_runtime_names_picks_the_devices_without_a_resource(tmp_path):
    # sweep 51: `docker run --runtime=habana ... ghcr.io/huggingface/tgi-gaudi` (IntelLabs/MMPano) and vLLM TPU
    # scripts exporting TPU_* variables (vllm-project/tpu-inference) were told "L4 yes, ..., MI300X yes" and the
    # NVIDIA/Slurm advice: only a device resource (amd.com/gpu, habana.ai/gaudi, google.com/tpu) said the vendor
    path = tmp_path / "d.yaml"
    path.write_text(VENDOR_POD.format(image="rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513"))
    assert run(["check", str(path), "--isolated", "--select", "CTX208", "-q"]).out == (
        f"{path}:8:9: CTX208 [info] {_NO_RESOURCE}19.7 (band 19.2-20.7) GiB per GPU at TP 1 (MI210 yes, MI250X-GCD "
        "yes, MI300X yes, MI325X yes, MI355X yes); state the device (a node selector naming it, or "
        "`default-accelerator:` in .ctxlint.yaml); capacity checks skip these roles (capacity-not-derivable)\n")
    path.write_text(VENDOR_POD.format(image="vllm/vllm-tpu:nightly"))
    assert run(["check", str(path), "--isolated", "--select", "CTX208", "-q"]).out == (
        f"{path}:8:9: CTX208 [info] {_NO_RESOURCE}20.4 (band 18.6-21.9) GiB per GPU at TP 1; {_OTHER}\n")
    # an NVIDIA build, or an image that says nothing, keeps the common devices
    path.write_text(VENDOR_POD.format(image="vllm/vllm-openai:v0.8.5"))
    assert "(L4 yes, A10G yes, " in run(["check", str(path), "--isolated", "--select", "CTX208"]).out
    script = tmp_path / "tgi_gaudi.sh"
    script.write_text("#!/bin/bash\ndocker run -p 8080:80 --runtime=habana -e HABANA_VISIBLE_DEVICES=all \\\n"
                      "    ghcr.io/huggingface/tgi-gaudi:2.0.0 --model-id Qwen/Qwen3-8B --max-total-tokens 8192\n")
    # on Gaudi no need from the CUDA arithmetic is given, nor devices (physics/gaudi.py)
    out = run(["check", str(script), "--isolated", "--select", "CTX208", "-q"]).out
    assert out == (f"{script}:3:5: CTX208 [info] {_GAUDI}8,192 tokens: the engine runs on Intel Gaudi (its docker "
                   "run options), and ctxlint models TGI's memory on CUDA devices only; state the KV memory the engine "
                   "logs (available_kv_gib); capacity checks skip these roles (capacity-not-derivable)\n")
    # a variable only Gaudi's stack reads, exported by a script that runs vLLM on the host
    script.write_text("#!/bin/bash\nexport PT_HPU_ENABLE_LAZY_COLLECTIVES=true\n"
                      "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    assert run(["check", str(script), "--isolated", "--select", "CTX208", "-q"]).out == (
        f"{script}:3:1: CTX208 [info] {_GAUDI}8,192 tokens: the engine runs on Intel Gaudi (as "
        "PT_HPU_ENABLE_LAZY_COLLECTIVES says), and vLLM's HPU worker sizes its KV cache from the memory free after its "
        "profile run x gpu_memory_utilization x (1 - VLLM_GRAPH_RESERVED_MEM, 0.1 by default), not as on CUDA, and its "
        "profile run's peak is not known here; state the KV memory the engine logs (available_kv_gib); capacity "
        "checks skip these roles (capacity-not-derivable)\n")


def test_image_and_docker_run_vendors():
    from ctxlint.engines.docker_run import requested_vendor
    from ctxlint.engines.image_builds import image_vendor

    assert [image_vendor(i) for i in (
        "rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513", "lmsysorg/sglang:v0.5.5-rocm700-mi30x", "rocm/sglang:latest",
        "opea/vllm-gaudi:1.4", "vault.habana.ai/gaudi-docker/1.22.0/ubuntu22.04/habanalabs/pytorch-installer-2.7.1",
        "vllm/vllm-tpu:nightly", "intel/vllm:0.10.2-xpu", "ghcr.io/ggml-org/llama.cpp:server-intel",
        "vllm/vllm-openai:v0.8.5", "acme/throughput:1", "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9",
        None)] == ["amd", "amd", "amd", "gaudi", "gaudi", "tpu", "intel", "intel", None, None, None, None]
    # a registry's host, a project that holds the word, or a name saying CUDA: no vendor
    assert [image_vendor(i) for i in (
        "us-docker.pkg.dev/my-tpu-project/vllm/vllm-openai:latest", "gaudi3-cluster.local:5000/vllm/vllm-openai:v0.9",
        "ghcr.io/rocm-tools/vllm-cuda:1", "registry.gitlab.com/hpu/foo:cu124", "docker.io/rocm/vllm-dev:main")] == [
        None, None, None, None, "amd"]
    assert requested_vendor("docker run --runtime=habana img".split()) == "gaudi"
    assert requested_vendor("docker run --device /dev/kfd --device /dev/dri img".split()) == "amd"
    assert requested_vendor("docker run --gpus all img --runtime=habana".split()) is None  # after the image: its args
