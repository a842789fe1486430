"""Which backend serves an LLM NIM, and whether NIM's published material lets ctxlint derive its KV pool.

What decides the pool of an LLM NIM, and where each fact comes from:

- NIM for LLMs 1.x runs its model on TensorRT-LLM, vLLM or SGLang, whichever the model profile it selects at run
  time is built for. A profile's readable name starts with its backend and names its parallel sizes:
  `tensorrt_llm-trtllm_buildable-bf16-tp8-pp2` runs on TP x PP = 16 GPUs (NIM for LLMs 1.12.0 docs, "Configure
  Your NIM", "How many GPUs do I need?": docs.nvidia.com/nim/large-language-models/1.12.0/configuration.html).
  NIM_MODEL_PROFILE also takes a profile id (64 hex digits), which names neither. Some NIM 1.15 container variants
  run SGLang (docs.nvidia.com/nim/large-language-models/1.15.0/nim-container-variants.html).
- k8s-nim-operator's NIMCache caches the profiles its `spec.source.ngc.model` selects; `engine` is "the backend
  engine (tensorrt_llm, vllm)" (NVIDIA/k8s-nim-operator bundle/manifests/apps.nvidia.com_nimcaches.yaml, the
  CRD's own description; the profiles' `llm_engine` tag, internal/nimparser testdata manifests). A NIMService runs
  a profile of the cache it names, so the cache's engine is the service's backend. Its `tensorParallelism` is "the
  minimum GPUs required", a filter, not the TP of the profile run: it is not read as one.
- NIM LLM 2.0 serves with vLLM (later 2.x images may carry SGLang, below): NIM_* variables "map to vLLM
  arguments", under NIM_PASSTHROUGH_ARGS and over the profile's tags (tp, pp) and NIM's built-in defaults (2.x
  docs, "Advanced Configuration":
  docs.nvidia.com/nim/large-language-models/2.0.0/reference/advanced-configuration.html; "Troubleshooting GPU
  Memory": "NIM and the vLLM backend allocate GPU memory", .../latest/troubleshooting/memory.html). Its pool is
  derived as vLLM's, and where nothing sets --gpu-memory-utilization vLLM's own default is assumed: the docs name
  a layer of NIM built-in defaults without giving its values, so the pool's account says so.
- A NIM 2.x image carries one engine, vLLM or SGLang (2.1 docs, "Advanced Configuration": "Each container image
  includes one inference engine"; SGLang ones: the model-free `sglang-model-free-nim`, and model-specific NIMs
  such as GLM-5.2, 2.0.13 docs "Get Started with GLM-5.2"). An image whose name says `sglang` is not read as vLLM;
  one whose name says neither is read as vLLM, and the pool's account says that backend was assumed.
- NIM_GPU_MEM_FRACTION and NIM_KVCACHE_PERCENT are set by deployments (NVIDIA's own video-search-and-summarization
  blueprint sets both on 2.x images for a shared GPU) but are not among the variables NIM 2.x documents (2.0.x
  docs' index of variables) nor mapped to a vLLM argument there: where one is set and NIM_PASSTHROUGH_ARGS sets
  no --gpu-memory-utilization, vLLM's default cannot stand for the share and the pool is not derived.
- Not established: the share of GPU memory NIM 1.x gives its backend's KV cache. Deployments set
  NIM_KVCACHE_PERCENT, but neither its default nor whether it is a share of total or of free memory under each
  backend could be read from NIM's documentation (third-party deployment notes call its behaviour
  "version-dependent"). A 1.x pool is therefore not derived, whatever its backend; the reason says which fact is
  missing, and a pool the engine logged can be stated instead.
"""
from __future__ import annotations

from typing import Dict, Optional

from ctxlint.adapters.crd_common import scalar
from ctxlint.adapters.workload import EnvVar
from ctxlint.lazyre import lazy_compile
from ctxlint.nodes import MAP, Node
from ctxlint.records import record

BACKENDS = {"tensorrt_llm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}
_PROFILE_BACKEND = lazy_compile(r"^(tensorrt_llm|vllm|sglang)(?:-|$)")
_PROFILE_ID = lazy_compile(r"^[0-9a-f]{64}$")
_SIZE = {"tp": lazy_compile(r"(?:^|-)tp(\d+)(?:-|$)"), "pp": lazy_compile(r"(?:^|-)pp(\d+)(?:-|$)")}
_RELEASE = lazy_compile(r"^(\d+)\.\d+")
# a NIM whose release is this or later serves with vLLM (2.x docs, above)
VLLM_RELEASE = 2
NOT_STATED = "NIM backend not stated"
SHARE_UNKNOWN = "NIM 1.x KV memory share not established"
NOT_VLLM = "NIM 2.x backend not vLLM"
SHARE_UNMAPPED = "NIM memory share variable not mapped"
# set by deployments to give the engine a share of GPU memory; NIM maps neither onto a vLLM argument (above)
SHARE_VARS = ("NIM_GPU_MEM_FRACTION", "NIM_KVCACHE_PERCENT")
_SHARE_FLAG = lazy_compile(r"--(?:gpu|device)[-_]memory[-_]utilization|--kv[-_]cache[-_]memory")


@record(frozen=True)
class Backend:
    """What the deployment states of the backend its NIM runs, and of the profile's parallel sizes."""

    name: Optional[str] = None  # a key of BACKENDS
    said: str = ""  # what states it, for messages: `NIM_MODEL_PROFILE=vllm-bf16-tp1-pp1`
    node: Optional[Node] = None  # where it is stated
    tp: Optional[int] = None  # from the profile's name
    pp: Optional[int] = None
    release: Optional[int] = None  # NIM's major release, from the image tag
    profile_id: bool = False  # NIM_MODEL_PROFILE is an id: it names no backend
    assumed: bool = False  # vLLM taken for a 2.x image whose name says no backend (it may carry SGLang)


def release_of(tag: Optional[str]) -> Optional[int]:
    found = _RELEASE.match(tag.strip()) if isinstance(tag, str) else None
    return int(found.group(1)) if found is not None else None


def stated_backend(by_name: Dict[str, EnvVar], tag: Optional[str], cache: Optional[Node],
                   image_text: str) -> Backend:
    """The backend a NIM deployment states: its profile's name, else its NIMCache's engine, else a vLLM image
    (the image's name, or a NIM 2.x release); none when nothing says."""
    release = release_of(tag)
    profile = by_name.get("NIM_MODEL_PROFILE")
    text = profile.value.strip().lower() if profile is not None and isinstance(profile.value, str) else ""
    found = _PROFILE_BACKEND.match(text)
    if found is not None:
        sizes = {k: int(m.group(1)) for k, rx in _SIZE.items() for m in [rx.search(text)] if m is not None}
        return Backend(found.group(1), f"NIM_MODEL_PROFILE={profile.value.strip()}", profile.node,
                       sizes.get("tp"), sizes.get("pp"), release)
    engine = cache.dig("spec", "source", "ngc", "model", "engine") if cache is not None and cache.kind == MAP \
        else None
    named = scalar(engine)
    if isinstance(named, str) and named.strip().lower() in BACKENDS:
        where = f"NIMCache {scalar(cache.dig('metadata', 'name'))} spec.source.ngc.model.engine={named.strip()}"
        return Backend(named.strip().lower(), where, engine, release=release)
    for word in ("vllm", "sglang"):
        if word in image_text.lower():
            return Backend(word, f"a NIM {BACKENDS[word]} image", release=release,
                           profile_id=bool(_PROFILE_ID.match(text)))
    if release is not None and release >= VLLM_RELEASE:
        return Backend("vllm", f"NIM {tag}, whose image name says no backend: vLLM assumed", release=release,
                       assumed=True)
    return Backend(release=release, profile_id=bool(_PROFILE_ID.match(text)))


def serves_with_vllm(backend: Backend, image_text: str) -> bool:
    """Read as vLLM: a NIM vLLM image, or a NIM 2.x release whose profile names no other backend."""
    if "vllm" in image_text.lower():
        return True
    return backend.name == "vllm" and backend.release is not None and backend.release >= VLLM_RELEASE


def stated_share(by_name: Dict[str, EnvVar]) -> Optional[EnvVar]:
    """A memory-share variable the deployment sets (SHARE_VARS), unless NIM_PASSTHROUGH_ARGS sets vLLM's own
    (the passthrough arguments win over the NIM_* variables)."""
    passthrough = by_name.get("NIM_PASSTHROUGH_ARGS")
    if passthrough is not None and isinstance(passthrough.value, str) and _SHARE_FLAG.search(passthrough.value):
        return None
    return next((by_name[n] for n in SHARE_VARS if n in by_name and isinstance(by_name[n].value, str)
                 and by_name[n].value.strip()), None)


def why_not_derived(backend: Backend, tag: Optional[str], share: Optional[EnvVar], vllm: bool = False) -> str:
    """Why this NIM's pool is not derived: `<headline>: <what is missing, and what would be read>`. `vllm`: the
    NIM serves with vLLM, and `share` sets its memory share by a variable no vLLM argument stands for."""
    release = f"NIM {tag}" if release_of(tag) is not None else "a NIM whose release the image tag does not name"
    if vllm and share is not None:
        return (f"{SHARE_UNMAPPED}: {release} serves with vLLM ({backend.said}), and {share.name}={share.value} sets "
                "a share of GPU memory that NIM's documentation maps to no vLLM argument, so vLLM's default cannot "
                "stand for it; state the share as --gpu-memory-utilization in NIM_PASSTHROUGH_ARGS (it wins over "
                "the NIM_* variables)")
    if backend.name is not None and backend.release is not None and backend.release >= VLLM_RELEASE:
        return (f"{NOT_VLLM}: {release} runs {BACKENDS[backend.name]} here ({backend.said}); a NIM 2.x pool is "
                "derived only where it serves with vLLM, whose arguments NIM's variables map to")
    if backend.name is None:
        profile = "NIM_MODEL_PROFILE is a profile id, which names none" if backend.profile_id else \
            "neither NIM_MODEL_PROFILE (by name, such as vllm-bf16-tp1-pp1) nor a NIMCache's model.engine says which"
        return (f"{NOT_STATED}: {release} picks its backend (TensorRT-LLM, vLLM or SGLang) from the model profile at "
                f"run time and {profile}; NIM 1.x's KV memory share is not established for any backend, a NIM 2.x "
                "image (vLLM) is derived")
    share = f"how NIM 1.x applies the stated {share.name}={share.value} to" \
        if share is not None else "what share of GPU memory NIM 1.x gives"
    return (f"{SHARE_UNKNOWN}: {release} runs {BACKENDS[backend.name]} here ({backend.said}), but NIM's "
            f"documentation does not establish {share} that backend's KV cache; a NIM 2.x image (vLLM) is derived")


def headline(raw: Optional[str]) -> Optional[str]:
    """The short reason of a why_not_derived text (the audit's why_unknown)."""
    if not isinstance(raw, str):
        return None
    head = raw.split(":", 1)[0]
    return head if head in (NOT_STATED, SHARE_UNKNOWN, NOT_VLLM, SHARE_UNMAPPED) else None
