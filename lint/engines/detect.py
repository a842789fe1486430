"""Find engine invocations in a command's tokens, and engines in image names.

Engine ids: "vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy".
`launcher` tells which front door was used ("vllm serve", "dynamo.vllm", ...),
because Dynamo workers accept extra flags and TRT-LLM's Dynamo worker spells
them differently.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

from ctxlint.lazyre import lazy_compile

from ..records import record
from .tokens import Token

_PY = lazy_compile(r"python(\d+(\.\d+)?)?$")
_MODULES = {
    "vllm.entrypoints.openai.api_server": ("vllm", None),
    "vllm.entrypoints.api_server": ("vllm", None),
    # gRPC front end: AsyncEngineArgs.add_cli_args on a FlexibleArgumentParser, the same engine flags
    # (vllm-project/vllm@029329a8eded26d05ef8d4a302a6c9f318817dd8:vllm/entrypoints/grpc_server.py)
    "vllm.entrypoints.grpc_server": ("vllm", None),
    "sglang.launch_server": ("sglang", None),
    "dynamo.vllm": ("vllm", None),
    "dynamo.sglang": ("sglang", None),
    "dynamo.trtllm": ("trtllm", None),
}


@record(frozen=True)
class Detection:
    engine: str
    launcher: str
    subcommand: Optional[str]
    start: int  # index of the program token (0 for args-only containers)
    args_start: int  # index of the first argument after program and subcommand
    via_image: bool = False  # args-only: the image's entrypoint is the engine


def _base(text: str) -> str:
    return text.rsplit("/", 1)[-1]


def _texts(tokens: Sequence[Union[Token, str]]) -> list[str]:
    return [t.text if isinstance(t, Token) else str(t) for t in tokens]


# Every program _at can match, by its base name: these names, or a llama-server build or a
# Python interpreter (tests/engines/test_detect_prefilter.py checks the two agree).
_PROGRAMS = frozenset({"vllm", "sglang", "text-generation-launcher", "trtllm-serve", "lmdeploy"})
_PROGRAM_PREFIXES = ("llama", "python")


def _at(texts: list[str], i: int) -> Optional[Detection]:
    """Detection when the program starts at texts[i], else None."""
    prog = _base(texts[i])
    nxt = texts[i + 1] if i + 1 < len(texts) else ""
    if prog == "vllm" and nxt == "serve":
        return Detection("vllm", "vllm serve", "serve", i, i + 2)
    if prog == "sglang" and nxt == "serve":
        return Detection("sglang", "sglang serve", "serve", i, i + 2)
    if prog == "text-generation-launcher":
        return Detection("tgi", "text-generation-launcher", None, i, i + 1)
    if prog == "trtllm-serve":
        if nxt in ("serve", "disaggregated", "disaggregated_mpi_worker", "mm_embedding_serve"):
            return Detection("trtllm", "trtllm-serve", nxt, i, i + 2)
        return Detection("trtllm", "trtllm-serve", "serve", i, i + 1)
    # llama-swap setups keep one binary per build: llama-server-ec9e0301, llama-server-b4589
    if prog in ("llama-server", "llama_server") or re.match(r"^llama[-_]server[-_.][0-9a-z]+$", prog):
        return Detection("llamacpp", "llama-server", None, i, i + 1)
    if prog == "lmdeploy" and nxt == "serve" and i + 2 < len(texts) and texts[i + 2] == "api_server":
        return Detection("lmdeploy", "lmdeploy serve api_server", "api_server", i, i + 3)
    if _PY.match(prog):
        j = i + 1
        while j < len(texts) and texts[j].startswith("-") and texts[j] != "-m":
            j += 1  # interpreter options such as -u, -O
        if j + 1 < len(texts) and texts[j] == "-m":
            mod = texts[j + 1]
            if mod in _MODULES:
                engine = _MODULES[mod][0]
                return Detection(engine, mod, None, i, j + 2)
            if mod == "lmdeploy" and texts[j + 2:j + 4] == ["serve", "api_server"]:
                return Detection("lmdeploy", "lmdeploy serve api_server", "api_server", i, j + 4)
            # the `vllm` console script's own module: `vllm = "vllm.entrypoints.cli.main:main"`
            # (vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18:pyproject.toml [project.scripts])
            if mod == "vllm.entrypoints.cli.main" and j + 2 < len(texts) and texts[j + 2] == "serve":
                return Detection("vllm", "vllm serve", "serve", i, j + 3)
    return None


def detect(tokens: Sequence[Union[Token, str]], image: Optional[str] = None,
           args_only: bool = False) -> list[Detection]:
    """Every engine invocation in one command's tokens.

    args_only: the tokens go to the image's ENTRYPOINT (Kubernetes `args`
    without `command`, compose `command` without `entrypoint`). Then, when no
    program is found and the image's entrypoint is the engine, the whole token
    list is one args-only detection.
    """
    texts = _texts(tokens)
    found = _programs(texts)
    if not found:
        # `docker run [opts] IMAGE ARGS...`: the arguments after the image go to its entrypoint.
        if texts and _base(texts[0]) in ("docker", "podman", "nerdctl") and "run" in texts[:3]:
            entry = _entrypoint(texts)
            if entry is not None:  # the image's own entrypoint does not run: an engine named there, or none
                return entry
            for i, t in enumerate(texts):
                eng, _ = engine_from_image(t)
                if eng and image_entrypoint_is_engine(t):
                    return [Detection(eng, "image:" + t, None, i, i + 1, via_image=True)]
        if args_only and image and image_entrypoint_is_engine(image):
            eng, _ = engine_from_image(image)
            if eng:
                return [Detection(eng, "image:" + image, _image_sub(eng), 0, 0, via_image=True)]
    return found


def _entrypoint(texts: list[str]) -> Optional[list[Detection]]:
    """`docker run --entrypoint vllm IMAGE serve MODEL ...`: `--entrypoint` replaces the image's ENTRYPOINT
    (its value one word, the program; docs.docker.com "docker run --entrypoint"), and the words after the image
    are that program's arguments. The detection sits at the image (`via_image`: its tag is the release) and
    reads the arguments after it; [] when the program is no engine (`--entrypoint /bin/bash`) and when
    `--entrypoint ""` clears the image's ENTRYPOINT (docs.docker.com/engine/reference/run/ "ENTRYPOINT"): the
    words after the image are then the whole command, and `detect` found no engine among them; None without
    `--entrypoint` (or with no image after it)."""
    from .docker_run import parse_run  # only a `docker run` command asks

    run = parse_run(texts)
    if run is None or run.entrypoint is None:
        return None
    program, image = run.entrypoint, run.image
    if not program:
        return []
    if engine_from_image(texts[image])[0] is None:
        return None
    found = _programs([program] + texts[image + 1:])
    if not found or found[0].start != 0:
        return []
    d = found[0]
    return [Detection(d.engine, d.launcher, d.subcommand, image, image + d.args_start, via_image=True)]


# How each engine is started, for advice (engines.md §0).
ENGINE_COMMANDS = {"vllm": "vllm serve", "sglang": "python3 -m sglang.launch_server", "tgi": "text-generation-launcher",
                   "trtllm": "trtllm-serve", "llamacpp": "llama-server", "lmdeploy": "lmdeploy serve api_server"}


def unknown_entrypoint_flags(tokens: Sequence[Union[Token, str]], image: Optional[str]) -> tuple[Optional[str], list[str]]:
    """(engine, its flags among the tokens) for args-only tokens that `detect` gave no engine: an image of
    that engine whose entrypoint is not known to start it (rocm/vllm, a fork). Its flags there mean the
    arguments were written for the engine, but what runs them is unknown: said, never guessed."""
    engine, _ = engine_from_image(image)
    if engine not in _SERVER_PROGRAMS or "$" in str(image) or image_entrypoint_is_engine(image) \
            or _SIMULATOR.search(_split_image(str(image))[0].rsplit("/", 1)[-1]):
        return None, []  # llama.cpp and TGI images vary by tag (full, light, server); a simulator runs no engine
    from .specs import spec_for  # only such a container pays for the flag tables

    spec = spec_for(engine)
    typed = [t.split("=", 1)[0] for t in _texts(tokens) if t.startswith("--")]
    # only flags the checks read (the model, context, pool, memory, parallel sizes): --port alone is no loss
    return engine, [t for t in typed if (f := spec.find(t)[0]) is not None and set(f.tags) & _CHECKED_TAGS]


_CHECKED_TAGS = {"context", "kv_pool", "memory", "model", "parallel"}
_SERVER_PROGRAMS = ("vllm", "sglang", "lmdeploy", "trtllm")
_SIMULATOR = lazy_compile(r"(?:^|[-_.])sim(?:ulator)?(?:$|[-_.])")  # llm-d-inference-sim, vllm-sim


def _programs(texts: list[str]) -> list[Detection]:
    """_at at every index that finds a program, in order."""
    found: list[Detection] = []
    for i, text in enumerate(texts):
        base = _base(text)
        # Most tokens are flags and values: _at is asked only for a program it could match.
        if base in _PROGRAMS or base.startswith(_PROGRAM_PREFIXES):
            d = _at(texts, i)
            if d is not None:
                found.append(d)
    return found


def _image_sub(engine: str) -> Optional[str]:
    return "serve" if engine == "vllm" else None


_TAG_VERSION = lazy_compile(r"v?(\d+(?:\.\d+)+(?:(?:\.|-)?(?:rc|post|dev|a|b)\d*)?)")


# `${REGISTRY:-opea}/vllm-rocm:${TAG:-latest}`: compose (and shell) use the default when the
# variable is unset, which is all a linter can know; without this the `:` inside `${TAG:-...}`
# is taken for the tag separator.
_DEFAULTED = lazy_compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^${}]*)\}")


def _split_image(image: str) -> tuple[str, str]:
    ref = _DEFAULTED.sub(lambda m: m.group(1), image.strip()).split("@", 1)[0]
    slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > slash:
        return ref[:colon].lower(), ref[colon + 1:]
    return ref.lower(), ""


def image_tag(image: str) -> str:
    """The tag as written once compose defaults are applied (`v0.6.6`), or ""."""
    return _split_image(image)[1]


def engine_from_image(image: object) -> tuple[Optional[str], Optional[str]]:
    """(engine, version) from an image reference; version None for `latest`,
    floating or templated tags. Never raises."""
    if not isinstance(image, str) or not image.strip():
        return None, None
    repo, tag = _split_image(image)
    name = repo.rsplit("/", 1)[-1]
    engine = None
    if "vllm" in name or repo.startswith("vllm/"):
        engine = "vllm"
    elif "sglang" in name:
        engine = "sglang"
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
    repo, tag = _split_image(image)
    if engine == "vllm":  # `-openai` names the OpenAI server entrypoint (vllm/vllm-openai, vllm-cpu-openai-ubi9)
        return ("openai" in repo.rsplit("/", 1)[-1] or repo.endswith("vllm/vllm-tpu")
                or repo.endswith("/vllm-cpu-release-repo") or _is_opea(repo))
    if engine == "tgi":
        return True
    if engine == "llamacpp":
        return tag.startswith("server") or "server" in repo.rsplit("/", 1)[-1]
    return False


# A tag that names the engine's release after its name: `vllm0.16.0`, `vllm_0.8.5`, `sglang-v0.4.1`.
_NAMED_VERSION = lazy_compile(r"(?:^|[-_.+])(vllm|sglang|lmdeploy)[-_]?v?(\d+(?:\.\d+)+(?:(?:\.|-)?(?:rc|post|dev)\d*)?)")


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
    Inference Server's `registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.2` (vLLM 0.10.1.1), NGC's
    monthly `nvcr.io/nvidia/vllm:26.02-py3` (vLLM 0.16.0rc2), OPEA's (below)."""
    owner = repo.split("/")
    return "lmcache" in owner[:-1] or "rhaiis" in owner[:-1] or repo == "nvcr.io/nvidia/vllm" or _is_opea(repo)


# OPEA's engine images (GenAIComps comps/third_parties/vllm/src): opea/vllm-rocm
# (Dockerfile.amd_gpu: ENTRYPOINT python3 .../api_server.py), opea/vllm-gaudi
# (HabanaAI/vllm-fork Dockerfile.hpu) and opea/vllm, opea/vllm-cpu (vLLM's
# docker/Dockerfile.cpu) all start the OpenAI server, so compose passes bare
# flags. Their tags are OPEA or Gaudi releases (1.4, 1.22.0), not vLLM versions.
_OPEA_VLLM = ("opea/vllm", "opea/vllm-rocm", "opea/vllm-gaudi", "opea/vllm-cpu")


def _is_opea(repo: str) -> bool:
    return any(repo == n or repo.endswith("/" + n) for n in _OPEA_VLLM)


_WORDS = lazy_compile(r"[-_.]")


def is_cpu_build(image: object) -> bool:
    """An engine image built for the CPU: `cpu` as a word of its name or tag (vllm-openai-cpu,
    opea/vllm-cpu, TGI's `2.4.0-intel-cpu`), or OPEA's plain opea/vllm (vLLM's Dockerfile.cpu, above)."""
    if not isinstance(image, str) or not image.strip():
        return False
    repo, tag = _split_image(image)
    words = _WORDS.split(repo.replace("/", "-")) + _WORDS.split(tag.lower())  # any path part (`.../cpu/vllm-openai`)
    if repo.endswith(("ggml-org/llama.cpp", "ggerganov/llama.cpp")) and tag and "$" not in tag:
        # llama.cpp's images name their GPU backend in the tag (server-cuda, server-cuda13, full-rocm, light-vulkan,
        # server-intel for SYCL, -musa); `server`, `full`, `light` alone are the CPU builds (ggml-org/llama.cpp
        # .devops/*.Dockerfile)
        backends = ("cuda", "rocm", "vulkan", "musa", "intel", "sycl")
        return not any(w.startswith(backends) for w in _WORDS.split(tag.lower()))
    return "cpu" in words or repo == "opea/vllm" or repo.endswith("/opea/vllm")
