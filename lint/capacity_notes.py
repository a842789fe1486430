"""Why a role of the capacity stage (ctxlint.capacity) has no KV pool, in words a user can act on.

CTX208 (capacity-not-derivable): the engine is not one ctxlint derives, the model is not known, the device is
stated but a parallel size is not, a CPU or Neuron build, an estimate that cannot be made, or no device at all
(then what memory per GPU one request needs, ctxlint.physics.needs), and for a role that states only a cap on
its pool (SGLang --max-total-tokens, TensorRT-LLM kv_cache_config.max_tokens) that it is no pool. CTX008: a
declared pool held against an engine default the unknown model decides.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

import ctxlint.capacity as _cap  # DERIVABLE_ENGINES, weights_of, rule names: read at call time (no import cycle)
from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment, Role, Source, fmt, role_list

from .neuron import why_not as neuron_why_not
from .physics.gaudi import unmodelled as unmodelled_on_gaudi
from .pool_caps import CAP_FLAG

if TYPE_CHECKING:
    from ctxlint.physics.models import ModelArch

needs_text = None  # ctxlint.physics.needs.needs_text, once a role has no device


_ROUTER_FLAGS = (("models_preset", "--models-preset"), ("models_dir", "--models-dir"))


def router_mode(dep: Deployment) -> str:
    """`--models-preset PATH` (or `--models-dir PATH`) of a llama-server that names no model: a router, which loads
    none itself and serves each model of its preset or directory from a child llama-server with that model's own
    settings (ggml-org/llama.cpp@145b628: tools/server/server.cpp `is_router_server`, common/arg.cpp). '' for any
    other deployment. Only these flags say so: a build before router mode had a default model path instead."""
    if dep.model.id is not None or (dep.engine.name.value if dep.engine.name is not None else None) != "llamacpp":
        return ""
    if any(_names_model(role) for role in dep.roles):
        return ""  # `-m "$MODEL"`, `-hf $REPO`: a model named by a value ctxlint does not know is no router's
    for role in dep.roles:
        for name, spelling in _ROUTER_FLAGS:
            val = role.arg(name)
            if val is not None:
                return f"{spelling} {val.value}" if val.value is not None else spelling
    return ""


def _names_model(role) -> bool:
    """Whether the role's command line names its model with a value that is not known (`-m "$MODEL"`, `-hf $R`,
    LLAMA_ARG_MODEL from the environment): llama-server is a router only when it is given none
    (`is_router_server = params.model.path.empty()`), and such a value is one when the server runs."""
    from ctxlint.engines.model_arg import model_keys
    from ctxlint.engines.specs import spec_for

    keys = set(model_keys("llamacpp")) | {"model_url"}
    spec = spec_for("llamacpp")
    for name in role.unresolved_settings:
        found = spec.find(name.split("=", 1)[0])[0] if name.startswith("-") else None
        if name in keys or found is not None and found.name in keys:
            return True
    return False


def _model_unknown(dep: Deployment) -> str:
    """Why the model's architecture is not known: the resolution's account and its hint."""
    resolution = dep.resolution
    what = resolution.how if resolution is not None else "no model id"
    hint = resolution.hint if resolution is not None and resolution.hint else ""
    router = router_mode(dep)
    if router:
        return (f"llama-server runs in router mode ({router}): it loads no model itself, and each model it serves "
                "runs in a llama-server of its own with the settings that file gives it, which ctxlint does not "
                "read; check each model's own command line (`llama-server -m MODEL -c N ...`)")
    if dep.input_format == "native":
        hint = "give spec.model.config (a config.json) or spec.model.architecture"
    return f"{what}{': ' + hint if hint else ''}"


def default_context_unknown(dep: Deployment, roles: List[Role]) -> Diagnostic:
    """A declared pool held against the engine's default context, which is the model's own limit and
    unknown while the model is: said (CTX008), or the pool is compared with nothing and a run is clean."""
    pools = role_list(roles, lambda r: fmt(r.pool.tokens))
    source = dep.model_source(roles[0])
    return Diagnostic(_cap.UNRESOLVED, f"the context length of {role_list(roles)} is the engine's "
                                  f"default, the model's own limit, which is not known: {_model_unknown(dep)}; the "
                                  f"declared KV pool ({pools} tokens) is compared with nothing until the model "
                                  "resolves or the context length is stated", source, dep.display_name)


def why_not_derived(dep: Deployment, arch: Optional[ModelArch], roles: List[Role]) -> List[Diagnostic]:
    """One CTX208 for the roles, or one per distinct memory need when their devices are not stated:
    a prefill at TP 4 and a decode at TP 2 need different memory per GPU (sweep 11: the prefill's
    figure and device list were said of both)."""
    engine = dep.engine.name.value if dep.engine.name is not None else None
    # no model id: at the role (its engine command or image), where the model would be named
    source: Source = dep.model_source(roles[0])
    resolution = dep.resolution
    if engine is not None and engine not in _cap.DERIVABLE_ENGINES:
        # first: no model id or architecture would let ctxlint derive this engine's pool (a NIM's NGC model name
        # was told to fetch its architecture from the Hugging Face Hub, which does not have it)
        why = f"the engine is {engine} (derivation needs vllm, sglang, tgi, trtllm, llamacpp or lmdeploy)"
        if engine == "tgis":  # IBM's fork: its memory rules are not Hugging Face TGI's (engines/flags_tgis.py)
            why = "IBM TGIS is not modelled (its KV-cache memory rules are not Hugging Face TGI's)"
        if engine == "nim" and dep.engine.name.raw:  # which fact of NIM's is missing (adapters/nim_backend.py)
            from ctxlint.adapters.workload_inputs import how_to_state_pool
            why = f"{dep.engine.name.raw}; or state the pool the engine logged " \
                  f"({how_to_state_pool(dep.input_format, tokens_only=True)})"
        source = dep.engine.name.source if dep.engine.name is not None else source
    elif arch is None:
        why = _model_unknown(dep)
    elif engine not in _cap.DERIVABLE_ENGINES:
        why = "the engine is not set (derivation needs vllm, sglang, tgi, trtllm, llamacpp or lmdeploy)"
        source = dep.engine.name.source if dep.engine.name is not None else source
    else:
        unknown = [r for r in roles if r.capacity is not None and r.capacity.errors]
        withheld = next((r.accelerator_withheld for r in roles if r.accelerator_withheld is not None), None)
        if withheld is not None:
            split = next((unknown_split(engine, r, arch) for r in roles if r.accelerator_withheld is not None), "")
            why = (f"the device is stated ({withheld.value}) but " + (_GPUS_UNKNOWN.get(split) or
                   "a parallel size is not known (CTX008 names it)") + ", and the pool per device depends on it")
            source = withheld.source
        elif all(r.cpu_build is not None and r.available_kv_gib is None for r in roles):
            from ctxlint.adapters.workload_inputs import how_to_state_pool  # only a CPU engine pays for it

            image = roles[0].cpu_build
            space = "VLLM_CPU_KVCACHE_SPACE (GiB) in the container's environment, or " if engine == "vllm" else ""
            if engine == "vllm":
                from ctxlint.engines.vllm_cpu_space import why_unknown
                release = dep.engine.version
                said = why_unknown(str(release.value) if release is not None else None, roles[0].engine_args,
                                   roles[0].unresolved_settings)
                space = f"{said}; state it ({space}"
            else:
                space = "state it ("
            from ctxlint.adapters.llamacpp_split import NO_LAYERS_OFFLOADED
            from ctxlint.engines.image_builds import DEVICE_CPU

            where = f"{image.value} offloads no layer to a GPU, and llama.cpp keeps each layer's KV cache with its " \
                "layer" if image.raw == NO_LAYERS_OFFLOADED else \
                f"the engine runs on its CPU backend ({image.value}, and no accelerator is requested)" \
                if image.raw == DEVICE_CPU else \
                f"the engine runs on the CPU ({image.value} is a CPU build and no accelerator is requested)"
            why = (f"{where}: its KV cache is host memory, which ctxlint does not derive; {space}"
                   f"{how_to_state_pool(dep.input_format)})")
            source = image.source
        elif all(r.neuron is not None for r in roles):
            from ctxlint.adapters.workload_inputs import how_to_state_pool  # only a Neuron engine pays for it

            why = neuron_why_not(engine, roles[0], how_to_state_pool(dep.input_format, tokens_only=True))
            source = roles[0].neuron.source
        elif all(r.available_kv_gib is None and r.accelerators.type is not None and unmodelled_on_gaudi(r, engine)
                 for r in roles):  # a device stated on Gaudi (a role with none: CTX208's need says the same)
            why = unmodelled_on_gaudi(roles[0], engine)
            source = roles[0].accelerators.type.source
        elif unknown:
            why = "; ".join(unknown[0].capacity.errors)
            source = unknown[0].accelerators.type.source if unknown[0].accelerators.type else source
        else:
            global needs_text
            if needs_text is None:
                from ctxlint.physics.needs import needs_text
            texts: Dict[str, List[Role]] = {}
            for r in roles:
                weights = _cap.weights_of(dep, r, resolution)
                split = unknown_split(engine, r, arch)
                texts.setdefault(_split_unknown(dep, r, arch, weights, split) if split else
                                 needs_text(dep, r, arch, weights), []).append(r)
            return [Diagnostic(_cap.NOT_DERIVABLE,
                               f"{_not_known(group, engine)}: {text}; capacity checks skip these roles",
                               group[0].source or source, dep.display_name) for text, group in texts.items()]
    return [Diagnostic(_cap.NOT_DERIVABLE, f"{_not_known(roles, engine)}: {why}; capacity checks skip these roles",
                       source, dep.display_name)]


# The settings that split one request's memory over GPUs, by engine (engine_roles._PARALLEL's tensor and pipeline
# sizes); SGLang's data-parallel size too under DP attention (physics/served.py), where it divides the attention TP.
_SPLITS = {"vllm": ("tensor_parallel_size", "pipeline_parallel_size"), "sglang": ("tp_size", "pp_size"),
           "trtllm": ("tp_size", "pp_size"), "lmdeploy": ("tp",), "tgi": ("num_shard", "tgi_shards"),
           # unequal shares over GPUs not counted, or the GPUs a privileged container or a script's `docker run --gpus
           # all` sees (llamacpp_split.layer_split)
           "llamacpp": ("tensor_split", "privileged", "docker_gpus", "compose_gpus", "runtime_class")}
_SPLIT_WORDS = {"tensor_parallel_size": "tensor-parallel", "tp_size": "tensor-parallel", "tp": "tensor-parallel",
                "num_shard": "tensor-parallel (shard)", "pipeline_parallel_size": "pipeline-parallel",
                "pp_size": "pipeline-parallel", "dp_size": "data-parallel (with DP attention)",
                "attn_dp_size": "attention data-parallel", "attn_cp_size": "attention context-parallel",
                "data_parallel_size": "data-parallel", "prefill_context_parallel_size": "prefill context-parallel"}
_UNEVEN = ("--tensor-split spreads the layers over GPUs whose count is not stated, in shares ctxlint does not "
           "count (unequal ones, or over the devices a CUDA_VISIBLE_DEVICES not known leaves)")
_PRIVILEGED = ("the container is privileged, so it sees every GPU of its node whatever its nvidia.com/gpu limit, and "
               "llama.cpp splits the layers over every GPU it sees (--split-mode layer, its default): how many is not "
               "known")
_RUNTIME_CLASS = ("the pod runs NVIDIA's runtime class with no nvidia.com/gpu limit, so the container sees the GPUs the "
                  "image's NVIDIA_VISIBLE_DEVICES names (a CUDA image's: all of its node's), and llama.cpp splits the "
                  "layers over every GPU it sees (--split-mode layer, its default): how many is not known")
_DOCKER_GPUS = ("the docker run line gives its container GPUs it does not count (--gpus all, a count not known, "
                "--runtime nvidia or amd with the image's NVIDIA_/AMD_VISIBLE_DEVICES, --device /dev/dri or a CDI "
                "name's =all, or --privileged or a GPU device beside --gpus: the host's), and llama.cpp splits the "
                "layers over every GPU it sees (--split-mode layer, its default): how many is not known")
_COMPOSE_GPUS = ("the Compose service gets GPUs no count states (a device reservation with no count or `count: all`, "
                 "`gpus: all`, `runtime: nvidia` or `amd` with the image's NVIDIA_/AMD_VISIBLE_DEVICES, `devices:` "
                 "/dev/dri or a CDI name's =all, or a GPU request beside another or `devices:` that may give other "
                 "GPUs: the host's), and llama.cpp splits the layers over every GPU it sees "
                 "(--split-mode layer, its default): how many is not known")
_TGI_SHARDS = ("no --num-shard (or NUM_SHARD) is given, so TGI runs a shard on each GPU it counts in "
               "CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES (`all`, or the `void` a CDI injection of the GPUs "
               "sets, asks nvidia-smi from v3.3.7), and which of the "
               "container's GPUs those name is the node's device plugin's or the host's to say, not the file's: "
               "the shard count is not known")
# llama.cpp's (and TGI's) reasons the GPUs it splits over are not counted: what CTX208 says, and what to state
_GPUS_UNKNOWN = {"tensor_split": _UNEVEN, "privileged": _PRIVILEGED, "docker_gpus": _DOCKER_GPUS,
                 "compose_gpus": _COMPOSE_GPUS, "tgi_shards": _TGI_SHARDS,
                 "runtime_class": _RUNTIME_CLASS}
_STATE_GPUS = {"tensor_split": "state the GPU count, and the device",
               "privileged": "set CUDA_VISIBLE_DEVICES to the GPUs it may use (or --split-mode none), and the device",
               "docker_gpus": "state the count (--gpus N, -e NVIDIA_VISIBLE_DEVICES=<ids> with --runtime nvidia "
                              "(AMD_: amd), each GPU's /dev/dri/renderD<node>, or CUDA_VISIBLE_DEVICES; or --split-mode none), "
                              "and the device",
               "tgi_shards": "state --num-shard (or NUM_SHARD), and the device",
               "runtime_class": "state the count (an nvidia.com/gpu limit, or NVIDIA_VISIBLE_DEVICES ids; or "
                                "--split-mode none), and the device",
               "compose_gpus": "state the count (the reservation's `count: N` or `device_ids`, NVIDIA_VISIBLE_DEVICES "
                               "ids with `runtime: nvidia` (AMD_: `amd`), each GPU's /dev/dri/renderD<node>, or "
                               "CUDA_VISIBLE_DEVICES; or --split-mode none), and the device"}
# Why a size that does not split one request's KV still sets what one GPU holds
_SPLIT_WHY = {"data_parallel_size": " (vLLM shards a MoE model's experts over TP x DP)",
              "prefill_context_parallel_size": " (vLLM shards a MoE model's experts over TP x DP x prefill CP)"}
# SGLang's attention DP and CP sizes divide the attention TP (physics/served.kv_tensor_parallel): a larger one puts
# more of each request's KV heads and attention weights on each GPU, where the sizes above spread them
_NARROWS = ("attn_dp_size", "attn_cp_size")


def unknown_split(engine: Optional[str], role: Role, arch=None) -> str:
    """The setting of a parallel size the role states but ctxlint cannot resolve (`--tensor-parallel-size $TP`),
    that the memory one GPU needs depends on; "" when there is none. vLLM shards a MoE model's experts over
    TP x DP (x prefill CP) GPUs, with or without --enable-expert-parallel (physics/served.expert_split;
    vllm-project/vllm vllm/model_executor/layers/fused_moe/config.py: FusedMoEParallelConfig.make calls
    flatten_tp_across_dp before it asks for EP): there an unknown --data-parallel-size divides the weights each
    GPU holds (sweep 22c: Dynamo's dsr1_dep.sh, `--data_parallel_size $((NUM_NODES * GPUS_PER_NODE)) --enable-expert-parallel`, read
    "needs >= 668.4 GiB per GPU at TP 1", all 256 experts of DeepSeek-R1 on one GPU)."""
    names = _SPLITS.get(str(engine), ())
    if engine == "vllm" and arch is not None and getattr(arch, "num_experts", None):
        names += ("data_parallel_size", "prefill_context_parallel_size")
    if engine == "sglang" and role.arg("enable_dp_attention") is not None \
            and role.arg("enable_dp_attention").value not in (False, "false", "False", 0):
        names += ("dp_size",)
    if engine == "sglang":
        names += _NARROWS
    return next((name for name in role.unresolved_settings if name in names), "")


def _split_unknown(dep: Deployment, role: Role, arch, weights, split: str) -> str:
    """CTX208's reason for a role whose device and one of whose parallel sizes are not known: what one request
    needs on one GPU, which the unknown size divides, not a per-GPU need at TP 1 as if that were the layout
    (sweep 43: "needs >= 716.7 GiB per GPU at TP 1" of a DeepSeek-R1 run at TP 16)."""
    from ctxlint.physics.needs import memory_need  # only a role without a device pays for it

    need = memory_need(dep, role, arch, weights)
    base = (f"no accelerator type is given, and {_GPUS_UNKNOWN[split]}: the memory the fullest GPU needs depends on "
            "it" if split in _GPUS_UNKNOWN else
            f"no accelerator type is given, and the {_SPLIT_WORDS.get(split, split)} size is stated but not known "
            f"(CTX008 names it): the memory one GPU needs depends on it{_SPLIT_WHY.get(split, '')}")
    state = _STATE_GPUS.get(split, "state it literally, and the device")
    if need is None or need.point is None or need.unmodelled:
        return f"{base}; {state}"
    band = f" (band {need.least:g}-{need.most:g})" if need.least is not None and need.most is not None \
        and need.least != need.most else ""
    how = ("which a larger size puts more of on each GPU (it narrows the attention's tensor-parallel split)"
           if split in _NARROWS else "whose experts a larger size spreads over more GPUs" if split in _SPLIT_WHY
           else "which a larger size spreads over its GPUs")
    return (f"{base}; at {need.layout} one request of {fmt(need.context)} tokens would need >= {need.point:g}{band} GiB "
            f"on its one GPU (the weights, the KV cache and the engine's own memory), {how}, so no need per GPU and "
            "no device verdict is given; " + _STATE_GPUS.get(split, "state the size literally, and the device"))


def _not_known(roles: List[Role], engine: Optional[str]) -> str:
    """"KV pool of ROLES not declared and not derivable", or what caps it when a role states only a cap."""
    labels = role_list(roles)
    caps = [r.kv_pool_tokens for r in roles if r.kv_pool_tokens is not None]
    if not caps:
        return f"KV pool of {labels} not declared and not derivable"
    flag = CAP_FLAG.get(engine, CAP_FLAG["trtllm"])  # a role with only a cap is SGLang's or TRT-LLM's
    return (f"KV pool of {labels} not derivable ({flag} {fmt(max(c.value for c in caps))} only caps the pool the "
            f"engine profiles, which may be smaller)")
