"""The engine's own `--device` (SGLang: 'cuda', 'xpu', 'hpu', 'npu', 'cpu') and Ascend's ASCEND_RT_VISIBLE_DEVICES say
which vendor's devices a launch runs on, as an image or a Gaudi variable does (Role.vendor): CTX208 then lists no
NVIDIA device verdicts. Sweep c31: hhhh1252023/pass@b5e7cc5fee2b35737320bf598121ea4bfb02ecba:cp/pnode60.sh runs
SGLang with `--device npu --attention-backend ascend` and read "(L4 no, A10G no, ..., H100-SXM-80GB yes, ...)"."""
from __future__ import annotations

import pytest

from ctxlint.audit import build_audit
from ctxlint.engine import lint_text
from ctxlint.engines.image_builds import image_vendor

SGLANG = """#!/bin/bash
{prefix}python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2 --context-length 32768 {extra}
"""
VLLM = """#!/bin/bash
{prefix}vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 32768
"""
OTHER_FIX = "state the device (`default-accelerator:` in .ctxlint.yaml, defined under `accelerators:` with its memory_gib"


def _ctx208(text: str) -> str:
    (finding,) = [f for f in lint_text(text, "serve.sh").findings if f.rule == "CTX208"]
    return finding.message


@pytest.mark.parametrize("extra", ["--device npu", "--device=npu", "--device xpu", "--device NPU"])
def test_non_nvidia_device_flag_lists_no_nvidia_verdicts(extra):
    message = _ctx208(SGLANG.format(prefix="", extra=extra))
    assert "holding one request of 32,768 tokens needs >= " in message
    assert "L4 " not in message and "H100" not in message
    assert OTHER_FIX in message


def test_gaudi_device_flag_gives_no_need():
    message = _ctx208(SGLANG.format(prefix="", extra="--device hpu"))
    assert "the engine runs on Intel Gaudi (as --device hpu says)" in message
    assert "needs >= " not in message


@pytest.mark.parametrize("extra", ["--device cuda", "--device cuda:0", ""])
def test_cuda_or_no_device_flag_keeps_the_nvidia_list(extra):
    assert "(L4 " in _ctx208(SGLANG.format(prefix="", extra=extra))


VLLM_DEVICE = """#!/bin/bash
vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 32768 {extra}
"""


@pytest.mark.parametrize("extra", ["--device=xpu", "--device tpu"])
def test_vllm_device_flag_lists_no_nvidia_verdicts(extra):
    # vLLM's DEVICE_OPTIONS (HabanaAI/vllm-fork@5052d326d1ee697ad2f0d2b8e5a595175b1a39c1:vllm/engine/arg_utils.py)
    message = _ctx208(VLLM_DEVICE.format(extra=extra))
    assert "L4 " not in message and OTHER_FIX in message


def test_vllm_hpu_device_flag_gives_no_need():
    # sweep c31: jyothisambolu/InferenceMAX benchmarks/70b_fp8_gaudi25_docker.sh passes `--device=hpu`
    message = _ctx208(VLLM_DEVICE.format(extra="--device=hpu"))
    assert "the engine runs on Intel Gaudi (as --device hpu says), and vLLM's HPU worker" in message
    assert "needs >= " not in message


@pytest.mark.parametrize("extra", ["--device cuda", "--device auto", "--device neuron", ""])
def test_vllm_cuda_auto_or_no_device_flag_names_no_vendor_here(extra):
    message = _ctx208(VLLM_DEVICE.format(extra=extra))
    assert "Intel Gaudi" not in message and OTHER_FIX not in message


@pytest.mark.parametrize("prefix", ["ASCEND_RT_VISIBLE_DEVICES=0,1 ", "export ASCEND_RT_VISIBLE_DEVICES=0,1\n"])
def test_ascend_runtime_variable_names_ascend(prefix):
    message = _ctx208(VLLM.format(prefix=prefix))
    assert "L4 " not in message and OTHER_FIX in message


@pytest.mark.parametrize("image, vendor", [
    ("quay.io/ascend/vllm-ascend:v0.9.1", "ascend"),
    ("quay.io/ascend/vllm-ascend:v0.11.0rc1-openeuler", "ascend"),
    ("vllm/vllm-openai:v0.9.1", None),
])
def test_ascend_image(image, vendor):
    assert image_vendor(image) == vendor


@pytest.mark.parametrize("text", [SGLANG.format(prefix="", extra="--device cpu"),
                                  VLLM_DEVICE.format(extra="--device cpu"), VLLM_DEVICE.format(extra="--device=cpu")])
def test_cpu_device_flag_is_a_cpu_engine(text):
    """`--device cpu` (SGLang's and vLLM's CPU backend) runs on no GPU: no NVIDIA verdicts ("L4 yes, ..."), and the
    role is a CPU engine whose KV cache is host memory, as on a CPU image."""
    report = lint_text(text, "serve.sh")
    message = _ctx208(text)
    assert "the engine runs on its CPU backend (--device cpu" in message
    assert "L4 " not in message and "needs >= " not in message
    (row,) = build_audit(report).rows
    assert row.verdict == "unknown" and row.why_unknown == "CPU engine: KV memory not stated"


def test_vllm_cpu_device_flag_reads_its_kv_space():
    text = "#!/bin/bash\nVLLM_CPU_KVCACHE_SPACE=40 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 " \
           "--device cpu\n"
    (row,) = build_audit(lint_text(text, "serve.sh")).rows
    assert row.verdict == "fits"


@pytest.mark.parametrize("devices", ["--device /dev/davinci0 --device /dev/davinci_manager", "--device=/dev/davinci3"])
def test_ascend_device_nodes_name_ascend(devices):
    """vllm-ascend's container gets the NPU's /dev/davinci* nodes (vllm-project/vllm-ascend@3351d0f1:
    docs/source/quick_start.md): such a `docker run` names Ascend, as /dev/kfd names AMD, whatever its image."""
    from ctxlint.engines.docker_run import requested_vendor

    assert requested_vendor(f"docker run {devices} img".split()) == "ascend"
    text = (f"#!/bin/bash\ndocker run -d {devices} -p 8000:8000 vllm/vllm-openai:v0.9.1 "
            "--model Qwen/Qwen2.5-7B-Instruct --max-model-len 32768\n")
    message = _ctx208(text)
    assert "L4 " not in message and OTHER_FIX in message


def test_sglang_musa_device_flag_lists_no_nvidia_verdicts():
    # Moore Threads' GPUs (sgl-project/sglang@36bc6404:python/sglang/srt/arg_groups/fields/device.py lists `musa`);
    # before: "(L4 no, ..., H100-SXM-80GB yes, ...)", NVIDIA devices for a MUSA run
    message = _ctx208(SGLANG.format(prefix="", extra="--device musa"))
    assert "holding one request of 32,768 tokens needs >= " in message
    assert "L4 " not in message and "H100" not in message and OTHER_FIX in message


@pytest.mark.parametrize("prefix", [
    "ONEAPI_DEVICE_SELECTOR=level_zero:0,1 ", "export ONEAPI_DEVICE_SELECTOR=level_zero:gpu\n",
    "export ONEAPI_DEVICE_SELECTOR='level_zero:*;!level_zero:2'\n",
    "ONEAPI_DEVICE_SELECTOR=hip:0,1 ",  # HIP's devices: AMD's list
])
def test_a_sycl_device_selector_of_one_backend_names_its_vendor(prefix):
    # DPC++'s EnvironmentVariables.md (https://intel.github.io/llvm-docs/EnvironmentVariables.html):
    # level_zero is Intel's GPUs' backend, hip AMD's
    message = _ctx208(VLLM.format(prefix=prefix))
    assert "L4 " not in message
    assert ("MI300X" in message) == ("hip" in prefix)


@pytest.mark.parametrize("prefix", [
    "ONEAPI_DEVICE_SELECTOR=cuda:0,1 ", "ONEAPI_DEVICE_SELECTOR='*:gpu' ", "ONEAPI_DEVICE_SELECTOR='opencl:gpu' ",
    "ONEAPI_DEVICE_SELECTOR='!opencl:*' ", "ONEAPI_DEVICE_SELECTOR=$SEL ",
])
def test_a_sycl_device_selector_of_any_or_nvidia_backend_names_no_vendor(prefix):
    assert "(L4 " in _ctx208(VLLM.format(prefix=prefix))
