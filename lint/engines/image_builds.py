"""What the words of an engine image's name and tag say about its build: a CPU build (`is_cpu_build`), the accelerator
vendor it is built for (`image_vendor`), and, for Hugging Face's TGI images, whether the build's entrypoint script
splits each argument at blanks (`tgi_entrypoint_splits`, by the tag's build label and release).

Apart from images.py, which reads the engine and its release from an image (asked of every role), because only a
role's devices (adapters/workload_devices.py) and TGI's joined arguments (engines/joined_words.py) ask these.
"""
from __future__ import annotations

import re
from typing import Optional

from ctxlint.lazyre import lazy_compile
from ctxlint.model import Val

from .images import _TAG_VERSION, _memo, engine_from_image, split_image

_WORDS = lazy_compile(r"[-_.]")


@_memo
def is_cpu_build(image: object) -> bool:
    """An engine image built for the CPU: `cpu` as a word of its name or tag (vllm-openai-cpu,
    opea/vllm-cpu, TGI's `2.4.0-intel-cpu`), or OPEA's plain opea/vllm (vLLM's Dockerfile.cpu: images._OPEA_VLLM)."""
    if not isinstance(image, str) or not image.strip():
        return False
    repo, tag = split_image(image)
    words = _WORDS.split(repo.replace("/", "-")) + _WORDS.split(tag.lower())  # any path part (`.../cpu/vllm-openai`)
    if repo.endswith(("ggml-org/llama.cpp", "ggerganov/llama.cpp")) and tag and "$" not in tag:
        # llama.cpp's images name their GPU backend in the tag (server-cuda, server-cuda13, full-rocm, light-vulkan,
        # server-intel for SYCL, -musa); `server`, `full`, `light` alone are the CPU builds (ggml-org/llama.cpp
        # .devops/*.Dockerfile)
        backends = ("cuda", "rocm", "vulkan", "musa", "intel", "sycl")
        return not any(w.startswith(backends) for w in _WORDS.split(tag.lower()))
    return "cpu" in words or repo == "opea/vllm" or repo.endswith("/opea/vllm")


# The accelerator vendor an image is built for, by the words of its name and tag (split at `/`, `-`, `_`, `.`):
# AMD's ROCm builds (rocm/vllm, vllm/vllm-openai-rocm, lmsysorg/sglang:v0.5.5-rocm700-mi30x, rocm/sglang,
# opea/vllm-rocm, llama.cpp's `full-rocm`), Intel Gaudi's (vault.habana.ai/gaudi-docker/..., opea/vllm-gaudi,
# ghcr.io/huggingface/tgi-gaudi, `-hpu`), Google's TPU builds (vllm/vllm-tpu, optimum-tpu), Intel GPUs' (`xpu`,
# llama.cpp's SYCL `server-intel`) and Huawei Ascend's (quay.io/ascend/vllm-ascend). Such an image runs on no
# NVIDIA GPU, so CTX208 gives no NVIDIA verdicts for its engine (physics/needs.py _vendor_devices). A word, not a
# substring: `output`, `throughput` name no TPU.
_VENDOR_WORDS = (("amd", ("rocm",)), ("gaudi", ("gaudi", "gaudi2", "gaudi3", "habana", "hpu")), ("tpu", ("tpu",)),
                 ("intel", ("xpu",)), ("ascend", ("ascend",)))

# SGLang's `--device` ('cuda', 'xpu', 'hpu', 'npu', 'cpu'; sgl-project/sglang python/sglang/srt/server_args.py,
# ServerArgs.device and its --device help, engines.md §2.1): the backend the server runs on. `npu` is Huawei
# Ascend's (torch_npu; sweep c31: hhhh1252023/pass@b5e7cc5fee2b35737320bf598121ea4bfb02ecba:cp/pnode60.sh runs
# DeepSeek-V3.2 with `--device npu --attention-backend ascend`), `xpu` Intel GPUs', `hpu` Gaudi's: none is NVIDIA's.
# vLLM's `--device` (DEVICE_OPTIONS: auto, cuda, neuron, cpu, tpu, xpu, hpu;
# HabanaAI/vllm-fork@5052d326d1ee697ad2f0d2b8e5a595175b1a39c1:vllm/engine/arg_utils.py; sweep c31's
# jyothisambolu/InferenceMAX Gaudi scripts pass `--device=hpu`): `hpu`, `xpu`, `tpu` likewise. Upstream's list
# changed by release: vllm-project/vllm@001999d2f360c2c5da23a916510c273b1a73d06c:vllm/engine/arg_utils.py adds
# `openvino` (its OpenVINO backend, on the CPU unless VLLM_OPENVINO_DEVICE says otherwise), and
# vllm-project/vllm@00634b8acf93e413a1c380288665a543b98be7ea:vllm/config/device.py keeps only auto, cuda, cpu, tpu, xpu
# (the flag deprecated). `neuron` and `openvino` are not read here: a `--device neuron` alone gets no Neuron reading
# (ctxlint.neuron reads resources, instance types, images and variables). `cpu` is either engine's CPU backend
# (flag_on_cpu).
# SGLang's `musa` (Moore Threads' GPUs, torch_musa; its --device help lists it from
# sgl-project/sglang@36bc64040ad5c0819c0ea221375e9ca211dac29b:python/sglang/srt/arg_groups/fields/device.py): not NVIDIA's.
_DEVICE_FLAG_VENDORS = {"sglang": {"npu": "ascend", "xpu": "intel", "hpu": "gaudi", "musa": "mthreads"},
                        "vllm": {"hpu": "gaudi", "xpu": "intel", "tpu": "tpu"}}


# Val.raw of a role's cpu_build that is no CPU image but the engine's own `--device cpu` (vLLM's and SGLang's CPU
# backend: capacity_notes words it so)
DEVICE_CPU = "device=cpu"


def flag_on_cpu(engine: object, device: Val) -> Optional[Val]:
    """`--device cpu` for vLLM or SGLang (both list `cpu` among its values, above): the engine runs on its CPU
    backend, its KV cache in host memory, as a CPU build's (workload_devices.cpu_build). The flag, where, else None."""
    value = device.value
    if str(engine) not in _DEVICE_FLAG_VENDORS or not isinstance(value, str) \
            or value.strip().lower().split(":", 1)[0] != "cpu":
        return None
    return Val(f"--device {value.strip()}", device.source, raw=DEVICE_CPU)


def flag_vendor(engine: object, device: Val) -> Optional[Val]:
    """The vendor the engine's own device setting (`--device npu`) names, where, else None (CUDA, CPU, auto, a value
    not known)."""
    value = device.value
    found = _DEVICE_FLAG_VENDORS.get(str(engine), {}).get(value.strip().lower().split(":", 1)[0]) \
        if isinstance(value, str) else None
    return Val(found, device.source, raw=f"--device {value}") if found is not None else None


@_memo
def image_vendor(image: object) -> Optional[str]:
    """"amd", "gaudi", "tpu", "intel" or "ascend" when the image's name or tag says it is built for that vendor's
    devices, else None (an NVIDIA, CPU or any-vendor build, or a name that does not say). Never raises."""
    if not isinstance(image, str) or not image.strip():
        return None
    repo, tag = split_image(image)
    parts = repo.lower().split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # the registry's host says where the image is kept, not what it is built for
    words = _WORDS.split(parts[-1]) + _WORDS.split(tag.lower())
    if any(w == "cuda" or (w[:2] == "cu" and w[2:].isdigit()) for w in words):
        return None  # the name or tag says CUDA (`vllm-cuda`, `cu124`): an NVIDIA build
    # the image's own name and tag, and a path component led by the word (`rocm/vllm`, `gaudi-docker/...`), not
    # one that merely holds it (a project `my-tpu-project` of a registry)
    words += [_WORDS.split(part)[0] for part in parts[:-1]]
    for vendor, names in _VENDOR_WORDS:
        # `rocm6.3.1`, `rocm700`, `tpu7x`: a version or generation glued to the word
        if any(w == n or (w.startswith(n) and w[len(n):len(n) + 1].isdigit()) for w in words for n in names):
            return vendor
    if repo.endswith(("ggml-org/llama.cpp", "ggerganov/llama.cpp")) and "intel" in _WORDS.split(tag.lower()):
        return "intel"  # llama.cpp's SYCL build (.devops/intel.Dockerfile)
    return None

# Hugging Face's TGI images whose ENTRYPOINT is /tgi-entrypoint.sh, which ends `exec text-generation-launcher $@` with
# `$@` unquoted, so bash splits each argument at blanks before the launcher sees it (huggingface/
# text-generation-inference@db931fcf: tgi-entrypoint.sh, backends/gaudi/ and backends/neuron/tgi-entrypoint.sh).
# By the tag's label (.github/workflows/build.yaml `label_extension`) and the release, as each Dockerfile's ENTRYPOINT
# was at the release's tag: the CUDA build (no label, Dockerfile) from v2.0.0 (v1.4.5 started the launcher);
# `-rocm` (Dockerfile_amd) from v2.0.4 (v2.0.0 to v2.0.3 started the launcher); `-gaudi` and `-neuron`
# (Dockerfile_gaudi, Dockerfile.neuron) always, from v3.1.1 when they came. `-intel-xpu`/`-intel-cpu`
# (Dockerfile_intel) and `-trtllm` (Dockerfile_trtllm) start the launcher; `-llamacpp` another program; the
# `sagemaker` target runs sagemaker-entrypoint.sh, which reads no argument. The separate huggingface/tgi-gaudi
# images start the launcher (huggingface/tgi-gaudi@b126bf4: Dockerfile `ENTRYPOINT ["text-generation-launcher"]`,
# as at its tags v2.0.1 to v2.0.5).
_TGI_SPLITS_FROM = {"": (2, 0, 0), "rocm": (2, 0, 4), "gaudi": (0,), "neuron": (0,)}
_TGI_WHOLE = ("intel", "trtllm", "llamacpp", "sagemaker")


def tgi_entrypoint_splits(image: object) -> Optional[bool]:
    """Whether a TGI image's entrypoint splits each argument at blanks (/tgi-entrypoint.sh): True, False (it starts
    the launcher, which gets each argument whole, or reads none), or None when the image's tag does not say
    (`latest`, `sha-...`, none, a variable, a build not named as Hugging Face's). Never raises."""
    if not isinstance(image, str) or engine_from_image(image)[0] != "tgi":
        return None
    repo, tag = split_image(image)
    name = repo.rsplit("/", 1)[-1]
    if name == "tgi-gaudi":
        return False
    if name != "text-generation-inference" or "$" in tag:
        return None
    words = _WORDS.split(tag.lower())
    if any(w in _TGI_WHOLE for w in words):
        return False
    m = _TAG_VERSION.match(tag)
    if m is None:
        return None
    label = next((w for w in words if w in _TGI_SPLITS_FROM), "")
    release = tuple(int(p) for p in re.findall(r"\d+", m.group(1))[:3])
    return release >= _TGI_SPLITS_FROM[label]


# The SYCL runtime's device filter, ONEAPI_DEVICE_SELECTOR (DPC++'s sycl/doc/EnvironmentVariables.md as published at
# https://intel.github.io/llvm-docs/EnvironmentVariables.html; discarding terms from intel/llvm#7309, 6bd5f9ce):
# `;`-separated `backend:devices` terms, `!term` discarding; the backends level_zero (Intel's GPUs), opencl (Intel's
# CPUs and GPUs, and other vendors' OpenCL devices), cuda, hip, native_cpu and `*`. Read by the engines that run on
# SYCL (vLLM's and SGLang's XPU backends through PyTorch's XPU device, llama.cpp's SYCL build); a CUDA build
# ignores it.
_SELECTOR_VENDORS = {"level_zero": "intel", "hip": "amd"}


def selector_vendor(value: object) -> Optional[str]:
    """The vendor an ONEAPI_DEVICE_SELECTOR value keeps the engine to: "intel" when every accepting term is Level
    Zero's, "amd" when every one is HIP's; None for any other (`cuda:` NVIDIA's, `opencl:` or `*:` any vendor's,
    discard terms alone, a value not known): the device is then not said here."""
    if not isinstance(value, str):
        return None
    terms = [term.strip() for term in value.split(";") if term.strip()]
    accepted = [term for term in terms if not term.startswith("!")]
    if not accepted or any(":" not in term for term in accepted):
        return None
    found = {_SELECTOR_VENDORS.get(term.split(":", 1)[0].strip().lower()) for term in accepted}
    return found.pop() if len(found) == 1 else None
