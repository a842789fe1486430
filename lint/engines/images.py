"""What an engine image reference says: which engine, which release, and whether its entrypoint starts the engine.

`engine_from_image` reads the engine and, where the tag or name numbers the engine's own release, the
version (`vllm/vllm-openai:v0.8.5`, `rocm/vllm:rocm6.3.1_vllm_0.8.5_...`, a Hugging Face DLC's TGI);
`image_entrypoint_is_engine` says whether bare arguments to the image are engine flags (what its build says of
devices and TGI's entrypoint script is image_builds.py). Image names are a registry's conventions, not a command line,
which is why they live apart from detect.py, which finds engine programs in a command's tokens.
"""
from __future__ import annotations

import re
from functools import update_wrapper
from typing import Optional

from ctxlint.lazyre import lazy_compile

# A release and its PEP 440 suffix (`0.6.1.post1`, `0.11.0rc2`, `0.11.0-rc1`, `0.9.0a1`), and nothing else: the suffix
# must end the word, and alpha/beta are written with their number and without a separator, so a platform or device
# suffix (`v0.19.1-arm64`, `v0.11.0-aarch64-ubuntu2404`, `v0.24.0-b200`, `-devel`) is no pre-release: read as
# `0.19.1-a`, it sorted before 0.19.1 and the release's memory rules were an older one's.
_TAG_VERSION = lazy_compile(r"v?(\d+(?:\.\d+)+(?:(?:(?:\.|-)?(?:rc|post|dev)\d*|(?:a|b)\d+)(?![A-Za-z0-9]))?)")


# `${REGISTRY:-opea}/vllm-rocm:${TAG:-latest}`: compose (and shell) use the default when the
# variable is unset, which is all a linter can know; without this the `:` inside `${TAG:-...}`
# is taken for the tag separator.
_DEFAULTED = lazy_compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^${}]*)\}")


def split_image(image: str) -> tuple[str, str]:
    ref = _DEFAULTED.sub(lambda m: m.group(1), image.strip()).split("@", 1)[0]
    slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > slash:
        return ref[:colon].lower(), ref[colon + 1:]
    return ref.lower(), ""


def image_tag(image: str) -> str:
    """The tag as written once compose defaults are applied (`v0.6.6`), or ""."""
    return split_image(image)[1]


_MEMO_SIZE = 1024  # bounded: any file may name any image
_UNSEEN = object()


def _memo(read):
    """`read(image)` kept by the image's text (a pure function of it): detect.py and the adapters read a role's
    image several times (two regex substitutions and a dozen substring tests each), and a tree names few images."""
    cache: dict = {}

    def remembered(image: object):
        if type(image) is not str:
            return read(image)
        found = cache.get(image, _UNSEEN)
        if found is _UNSEEN:
            found = read(image)
            if len(cache) < _MEMO_SIZE:
                cache[image] = found
        return found
    update_wrapper(remembered, read)  # its name and doc; __wrapped__, the function reading afresh
    remembered.cache = cache  # type: ignore[attr-defined]
    return remembered


@_memo
def engine_from_image(image: object) -> tuple[Optional[str], Optional[str]]:
    """(engine, version) from an image reference; version None for `latest`,
    floating or templated tags. Never raises."""
    if not isinstance(image, str) or not image.strip():
        return None, None
    repo, tag = split_image(image)
    name = repo.rsplit("/", 1)[-1]
    engine = None
    if "vllm" in name or repo.startswith("vllm/") or (name == "tritonserver" and "-vllm-" in tag.lower()):
        engine = "vllm"  # Triton's `YY.MM-vllm-python-py3` runs vLLM as its backend (ngc.py)
    elif "sglang" in name:
        engine = "sglang"
    elif repo.endswith(_TGIS_IMAGES):  # IBM's TGIS, named as Hugging Face's TGI (flags_tgis)
        engine = "tgis"
    elif "text-generation-inference" in name or name == "tgi-gaudi" or name.endswith("-tgi-inference"):
        engine = "tgi"
    elif "llama.cpp" in name or "llama-cpp" in name or "llamacpp" in name:
        engine = "llamacpp"
    elif "lmdeploy" in name:
        engine = "lmdeploy"
    # NGC's nvcr.io/nvidia/tensorrt-llm/release:1.0.0 is named by its path, tagged by the TRT-LLM release.
    elif "tensorrt-llm" in name or "tensorrtllm" in name or "trtllm" in name or \
            (name == "tritonserver" and "trtllm" in tag) or repo.endswith("tensorrt-llm/release"):
        engine = "trtllm"
    if engine is None:
        return None, None
    if "ai-dynamo/" in repo:  # Dynamo's runtime images: their tags number Dynamo's releases, whose engines Dynamo lists
        from .dynamo_images import dynamo_release  # only such an image pays for the table

        dynamo = dynamo_release(repo, tag)
        if dynamo is not None and dynamo[0] == engine:
            return dynamo
    if "nvcr.io/nvidia/" in repo:  # NVIDIA's monthly containers: the release NVIDIA's notes state for the month
        from .ngc import ngc_release  # only such an image pays for the table

        ngc = ngc_release(repo, tag)
        if ngc is not None and ngc[0] == engine:
            return ngc
    # the release named after the engine's name, in the tag or else in the image's own name
    # (`public.ecr.aws/data-on-eks/ray-2.41.0-py310-cu118-vllm0.7.0:latest`)
    named = (_NAMED_VERSION.search(tag.lower()) or _NAMED_VERSION.search(name)) \
        if engine in ("vllm", "sglang", "lmdeploy") else None
    if "$" in tag:
        version = None
    elif named is not None and named.group(1) == engine:
        version = named.group(2)  # `rocm6.3.1_vllm_0.8.5_20250513`, `v1.2.4a-cuda12.8.0-vllm0.16.0`
    elif _own_numbering(repo):
        version = None
    elif name in _RELEASE_IMAGES.get(engine, ()) and (name != engine or _vendor_owned(repo, engine)):
        m = _TAG_VERSION.match(tag)
        version = m.group(1) if m else None
    else:
        version = None  # a custom build (`quay.io/tms/vllm-dev-pplx:0.1.0`): its tag numbers its own builds
    if engine == "tgi":  # a Deep Learning Container names the TGI release apart from the tag's numbers
        version = _hf_dlc_tgi(name, tag) or version
    if engine == "llamacpp" and version is None:
        b = re.search(r"\bb(\d{3,})\b", tag.replace("-", " "))
        version = "b" + b.group(1) if b else None
    return engine, version


def release_named_in_tag(engine: str, image: object) -> Optional[str]:
    """The release of `engine` an image named for something else states in its tag, after the engine's name:
    `mooncake:0.3.7.post2-sglang0.5.5.post3-deepep` (a Mooncake build of SGLang 0.5.5.post3,
    AliyunContainerService/ai-models-on-ack:llm/sglang/sglang-pd-qwen3-235b.yaml), or None. Only the tag counts and
    only for the engine the container's command runs: a name such as `mooncake` numbers its own builds, and its
    tag's first number is Mooncake's, but the release written after the engine's name is the one the builder
    installed (as `rocm/vllm:rocm6.3.1_vllm_0.8.5_...`, which engine_from_image reads for an image named for vLLM)."""
    if engine not in ("vllm", "sglang", "lmdeploy") or not isinstance(image, str):
        return None
    tag = image_tag(image)
    if not tag or "$" in tag:
        return None
    named = _NAMED_VERSION.search(tag.lower())
    return named.group(2) if named is not None and named.group(1) == engine else None


# IBM TGIS images: OpenShift AI's (the runtime red-hat-data-services/ods-ci names `tgis-runtime`,
# ods_ci/tests/Resources/Files/llm/serving_runtimes/tgis_servingruntime_grpc.yaml), Open Data Hub's (the base
# of opendatahub-io/caikit-tgis-serving's Dockerfile) and IBM's own build (SERVER_IMAGE in
# IBM/text-generation-inference@006006d7974604558665d48a81ff2b1d1d8f9537:.github/workflows/build.yml). Its
# Dockerfile ends `CMD text-generation-launcher` with no ENTRYPOINT: arguments alone replace the launcher.
_TGIS_IMAGES = ("quay.io/modh/text-generation-inference", "quay.io/opendatahub/text-generation-inference",
                "quay.io/wxpe/text-gen-server")


# Hugging Face's Deep Learning Containers name the TGI release in the image, not the tag: Google's
# `huggingface-text-generation-inference-cu121.2-1.ubuntu2204.py310` is TGI 2.1 (the part after the
# CUDA version, dash for dot), SageMaker's `huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-...`
# is TGI 2.0.0 (the tag's `tgiX.Y.Z`; the leading number is PyTorch's).
_GCP_DLC = lazy_compile(r"text-generation-inference-cu\d+\.(\d+)-(\d+)(?:-(\d+))?\.")
_SAGEMAKER_TGI = lazy_compile(r"(?:^|-)tgi(\d+\.\d+(?:\.\d+)?)(?:-|$)")


def _hf_dlc_tgi(name: str, tag: str) -> Optional[str]:
    m = _GCP_DLC.search(name)
    if m:
        return ".".join(p for p in m.groups() if p is not None)
    m = _SAGEMAKER_TGI.search(tag)
    return m.group(1) if m else None


def image_entrypoint_is_engine(image: object) -> bool:
    """True when the image's ENTRYPOINT starts the engine, so bare args are engine flags.

    vllm/vllm-openai (`vllm serve`), TGI (`text-generation-launcher`) and the
    llama.cpp `server` images do; SGLang, LMDeploy, Triton and Dynamo runtime
    images start a shell or nothing.
    """
    engine, _ = engine_from_image(image)
    if engine is None or not isinstance(image, str):
        return False
    repo, tag = split_image(image)
    if engine == "vllm":  # `-openai` names the OpenAI server entrypoint (vllm/vllm-openai, vllm-cpu-openai-ubi9)
        return ("openai" in repo.rsplit("/", 1)[-1] or repo.endswith("vllm/vllm-tpu")
                or repo.endswith("/vllm-cpu-release-repo") or _is_opea(repo) or repo in _VLLM_LOCAL_TAGS
                or repo.endswith(_RHAIIS_SERVER))
    if engine == "tgi":
        return True
    if engine == "llamacpp":
        return tag.startswith("server") or "server" in repo.rsplit("/", 1)[-1]
    return False


# Red Hat AI Inference Server's CUDA image starts the OpenAI server: Red Hat's "vLLM server arguments" guide for 3.0,
# 3.1 and 3.2 (docs.redhat.com/en/documentation/red_hat_ai_inference_server/3.1/html-single/vllm_server_arguments,
# chapter 1) runs `podman run ... registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.1.0 --model RedHatAI/... \
# --tensor-parallel-size 2 --max-model-len 16384`, server arguments straight after the image. Its ROCm and other
# images, and OpenShift AI's `rhaii/` builds, are run with a command in what was read (no such source): not listed.
_RHAIIS_SERVER = "/rhaiis/vllm-cuda-rhel9"


# The tags vLLM's own install docs give the images they build from source, bare (a local image, no registry):
# `docker build -f docker/Dockerfile.cpu --tag vllm-cpu-env --target vllm-openai .` and `--tag vllm-cpu-zen-env
# --target vllm-openai-zen` (vllm-project/vllm@02319794a1415e663baaf6de2f8197f795bd8c03:docs/getting_started/
# installation/cpu.x86.inc.md, whose `docker run ... vllm-cpu-env MODEL --dtype=bfloat16` passes server arguments;
# cpu.arm.inc.md and cpu.s390x.inc.md use the same tag). The vllm-openai target's ENTRYPOINT is the server
# (vllm-project/vllm@002c42b2b4358cc689ec19f2e591a38de6694718:docker/Dockerfile.cpu `ENTRYPOINT ["vllm", "serve"]`;
# vllm-openai-zen is FROM it). The docs' `vllm-xpu-env` (gpu.xpu.inc.md) is run with no arguments and no
# `--target`, which says nothing of its entrypoint across releases: not listed (flags passed to it are CTX008).
_VLLM_LOCAL_TAGS = ("vllm-cpu-env", "vllm-cpu-zen-env")


# A tag that names the engine's release after its name: `vllm0.16.0`, `vllm_0.8.5`, `sglang-v0.4.1`.
# Its suffix ends the word, as in _TAG_VERSION: `rocm6.3.1_vllm_0.8.5-devel` is 0.8.5, not the pre-release 0.8.5-dev.
_NAMED_VERSION = lazy_compile(r"(?:^|[-_.+])(vllm|sglang|lmdeploy)[-_]?v?"
                              r"(\d+(?:\.\d+)+(?:(?:\.|-)?(?:rc|post|dev)\d*(?![A-Za-z0-9]))?)")


# Image names whose tags are the engine's release: the engines' own images (vllm/vllm-openai, -rocm, -cpu,
# -tpu, vLLM's CPU release repo, lmsysorg/sglang(-rocm), huggingface/text-generation-inference and tgi-gaudi,
# openmmlab/lmdeploy, NGC's tensorrt-llm/release) and the vendors' builds named after the engine alone (AMD's
# rocm/vllm, Intel's intel/vllm, AWS's DLC `.../vllm:0.9.2-gpu-...`), under any registry or mirror; vllm-ascend
# numbers the vLLM release it supports; Red Hat AI services' vllm-openai-ubi9 is tagged by the vLLM it pins
# (rh-aiservices-bu/llm-on-openshift@2b638986:llm-servers/vllm/gpu/requirements.txt: vllm==0.4.2); AIBrix's
# KV-cache builds are FROM vllm/vllm-openai at their tag's release (vllm-project/aibrix@e3e10f9e:
# python/aibrix_kvcache/integration/vllm/docker/Dockerfile). Any other name is a custom build, whose tag may
# number anything (an unknown release is estimated under every release: a wider band, never a wrong one).
_RELEASE_IMAGES = {
    "vllm": ("vllm-openai", "vllm-openai-rocm", "vllm-openai-cpu", "vllm-tpu", "vllm-cpu-release-repo", "vllm",
             "vllm-ascend", "vllm-openai-ubi9", "vllm-openai-aibrix-kvcache", "vllm-openai-aibrix-kvcache-nixl"),
    "sglang": ("sglang", "sglang-rocm"), "tgi": ("text-generation-inference", "tgi-gaudi"),
    "lmdeploy": ("lmdeploy",), "trtllm": ("release", "tensorrt-llm"),
}


# An image named after the engine alone is the engine's release only from its makers and the vendors
# above: anyone can push `<user>/vllm:0.1` (sweep 11: coreweave/kubernetes-cloud runs rtalaricw/vllm:0.1,
# with flags vLLM 0.1 never had). AWS's Deep Learning Containers live in the public gallery's
# deep-learning-containers namespace or the DLC account's registry (763104351884.dkr.ecr.*). AIBrix's
# aibrix/sglang:v0.4.9.post3-cu126-nixl-v0.4.1 is lmsysorg/sglang:v0.4.9.post3-cu126 plus NIXL
# (vllm-project/aibrix@fb8c419d35f899bcc5b7ba6e91a7c5f8bcaa30d3:samples/disaggregation/sglang/README.md).
_ENGINE_NAMED_OWNERS = {"vllm": ("intel", "rocm", "deep-learning-containers"), "sglang": ("lmsysorg", "aibrix"),
                        "lmdeploy": ("openmmlab",)}


def is_release_image(image: object) -> bool:
    """An engine's own release image or a vendor's named after the engine (`vllm/vllm-openai:latest`,
    `rocm/vllm:...`), which its registry holds, whatever the tag; a custom build's name (`local/vllm-secrets:v1`)
    is not one (compose_build: a service that names one beside `build:` pulls it)."""
    engine, _ = engine_from_image(image)
    if engine is None or not isinstance(image, str) or "$" in image:
        return False
    repo, _ = split_image(image)
    name = repo.rsplit("/", 1)[-1]
    return not _own_numbering(repo) and name in _RELEASE_IMAGES.get(engine, ()) and (
        name != engine or _vendor_owned(repo, engine))


def _vendor_owned(repo: str, engine: str) -> bool:
    parts = repo.split("/")[:-1]
    owners = _ENGINE_NAMED_OWNERS.get(engine)
    if owners is None:
        return True
    return any(p in owners for p in parts) or (engine == "vllm" and bool(parts) and
                                               parts[0].startswith("763104351884.dkr.ecr."))


def _own_numbering(repo: str) -> bool:
    """Images built on an engine whose tags number their own product's releases, not the engine's:
    LMCache's `lmcache/vllm-openai:v0.3.9post2` (LMCache 0.3.9; vLLM had no 0.3.9), Red Hat AI
    Inference Server's `registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.2` (vLLM 0.10.1.1), OPEA's (below).
    NGC's monthly `nvcr.io/nvidia/vllm:25.10-py3` is NVIDIA's month too: ngc.py holds the months NVIDIA's
    notes state, and the others stay unknown there, before this is asked."""
    owner = repo.split("/")
    return "lmcache" in owner[:-1] or "rhaiis" in owner[:-1] or _is_opea(repo)


# OPEA's engine images (GenAIComps comps/third_parties/vllm/src): opea/vllm-rocm
# (Dockerfile.amd_gpu: ENTRYPOINT python3 .../api_server.py), opea/vllm-gaudi
# (HabanaAI/vllm-fork Dockerfile.hpu) and opea/vllm, opea/vllm-cpu (vLLM's
# docker/Dockerfile.cpu) all start the OpenAI server, so compose passes bare
# flags. Their tags are OPEA or Gaudi releases (1.4, 1.22.0), not vLLM versions.
_OPEA_VLLM = ("opea/vllm", "opea/vllm-rocm", "opea/vllm-gaudi", "opea/vllm-cpu")


# HabanaAI/vllm-fork, which opea/vllm-gaudi builds (Dockerfile.hpu), is vLLM before 0.10: its Gaudi releases are
# the v0.9 line (v0.9.0.1+Gaudi-1.22.0, HabanaAI/vllm-fork@2e9b2b3d) to its end of life (HabanaAI/vllm-fork@95af7009,
# whose vllm/engine/arg_utils.py still has --max-seq-len-to-capture, dropped upstream in 0.11.0). Its tag names no
# vLLM release, but none of these images runs one this or later.
_RELEASE_BELOW = {"opea/vllm-gaudi": "0.10.0"}


def release_below(image: object) -> Optional[str]:
    """The vLLM release an image whose tag names none is known to be before (a fork's line), or None."""
    if not isinstance(image, str) or "vllm-gaudi" not in image:
        return None
    repo, _ = split_image(image)
    return next((v for n, v in _RELEASE_BELOW.items() if repo == n or repo.endswith("/" + n)), None)


def _is_opea(repo: str) -> bool:
    return any(repo == n or repo.endswith("/" + n) for n in _OPEA_VLLM)
