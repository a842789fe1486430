"""The capacity stage: give every role the KV pool its replicas actually get.

1. The model is resolved (ctxlint.resolution: user facts, a config.json beside the file,
   the lock file, the catalog, the name), and the resolution says how.
2. A role that sets no context length gets its engine's own default for this model
   (ctxlint.physics.context), marked as a default; an engine that lowers its default to
   the pool by itself gets the lower of the two.
3. A role whose file names no accelerator type takes the config's `default-accelerator`
   for its path, marked as assumed.
4. Declared pools (`kv_pool_tokens`) are taken as written. For roles without one, the pool
   is derived from the architecture, the accelerators, the parallelism, the KV dtype and
   the engine's memory settings (ctxlint.physics), and marked "derived" with its arithmetic.
The physics result is kept on every role with enough facts, so the CTX2xx rules can hold
declared values against the hardware too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment, Pool, Role, Val, fmt

from .held import logged_reading, on_cpu, release_of, vllm_block, with_held, with_release_block
from . import no_kv_memory  # a module, not its names: it reads this one's at call time (no import cycle)
from .pool_caps import GIB, engine_cap, explain
from .resolution.provenance import model_from
from ctxlint.physics.mtp import draft_layers
from .records import field, record, replace

if TYPE_CHECKING:  # the physics modules are imported when a deployment needs them
    from ctxlint.physics.models import ModelArch

NOT_DERIVABLE, NO_KV_MEMORY = "capacity-not-derivable", "no-kv-memory"
UNRESOLVED = "unresolved-value"  # CTX008, as the adapters' (adapters/workload.py)
DERIVABLE_ENGINES = {  # the engines whose KV pool ctxlint can derive
    "vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy"}
# TensorRT-LLM: QuantConfig.quant_algo (FP8, NVFP4), the quantization a build applies to the checkpoint's weights
_QUANT_FLAG = {"vllm": "quantization", "sglang": "quantization", "tgi": "quantize", "lmdeploy": "model_format",
               "trtllm": "quant_config.quant_algo"}


@record(frozen=True)
class CapacityEnv:
    """What the capacity stage may use besides the deployment (from the settings)."""

    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # `models:` in .ctxlint.yaml
    lock: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # the models lock file
    hf_cache: Tuple[str, ...] = ()  # Hugging Face hub cache directories
    default_accelerators: Tuple[Tuple[str, str], ...] = ()  # (path glob, device), first match wins
    root: str = "."  # globs are relative to this directory
    config_path: str = ".ctxlint.yaml"  # for messages: where the defaults were set
    known_files: Optional[Dict[str, bool]] = field(default=None, compare=False)  # the run's (resolve.Context)


_PHYSICS = False  # whether _physics() has bound the names below
# Bound on first use, as _physics() binds the rest: most runs need neither.
default_context = None  # ctxlint.physics.context.default_context, once a role has no context length


def _physics() -> None:
    """Import the physics this module calls, on the first deployment (a run of files without one
    never pays for it), binding the names as module globals: an import statement in each function
    that calls them cost ~1 us a call, about seven a deployment."""
    global _PHYSICS, resolved_model, flag_format, CapacityInput, estimate, lookup_accelerator, written_device, on_gaudi
    from ctxlint.physics.accelerators import lookup_accelerator, written_device
    from ctxlint.physics.gaudi import on_gaudi
    from ctxlint.physics.capacity import CapacityInput, estimate
    from ctxlint.resolution.weight_account import flag_format
    from .capacity_model import resolved_model
    _PHYSICS = True


def with_pools(dep: Deployment, env: CapacityEnv = CapacityEnv()) -> Tuple[Deployment, List[Diagnostic]]:
    if not _PHYSICS:
        _physics()
    diagnostics: List[Diagnostic] = []
    resolution = resolved_model(dep, env, diagnostics)
    # a checkpoint named only by its served name (resolution/served_name.py) is of a format not known: no refusal
    if resolution.weights is not None and _engine(dep) == "vllm" and resolution.via != "served" \
            and any(r.arg("quantization") for r in dep.roles):
        from ctxlint.resolution.quant_flag import refusals  # only a vLLM role with a flag pays for the import
        diagnostics.extend(refusals(dep, resolution.weights))
    arch = resolution.arch
    if _engine(dep) in ("vllm", "sglang") and any(r.arg("VLLM_PP_LAYER_PARTITION" if _engine(dep) == "vllm" else
                                                      "SGLANG_PP_LAYER_PARTITION") is not None for r in dep.roles):
        from ctxlint.resolution.pp_refusals import refusals as pp_refusals  # only a role that sets it pays
        diagnostics.extend(pp_refusals(dep, arch, _engine(dep)))
    if _engine(dep) == "lmdeploy":
        from ctxlint.resolution.lmdeploy_refusals import refusals as lmdeploy_refusals  # LMDeploy's alone
        diagnostics.extend(lmdeploy_refusals(dep, arch, resolution))
    assumed = _default_accelerator(dep, env)
    roles = tuple(_role(dep, role, arch, resolution, assumed, env) for role in dep.roles)
    dep = replace(dep, roles=roles, arch=arch, resolution=resolution)
    diagnostics.extend(no_kv_memory.diagnostics(dep))
    if _engine(dep) == "llamacpp":  # -c cells the GPU cannot hold, with nothing to move them off it (CTX209)
        from .llamacpp_cells import diagnostics as unallocatable
        diagnostics.extend(unallocatable(dep))
    # Roles whose memory cannot hold the weights (CTX203) or one KV block (CTX209) have a verdict.
    missing = [r for r in roles if r.pool is None and no_kv_memory.starved(dep, r) not in ("weights", "kv")]
    if missing:
        from .capacity_notes import why_not_derived  # only a role left without a pool pays for the words
        diagnostics.extend(why_not_derived(dep, arch, missing))
    # the context is the engine's default (not written as an unknown `$(LEN)`), of a named model not resolved
    held = [r for r in roles if r.pool is not None and r.context_length is None
            and not _context_set_unknown(r, _engine(dep) or "")]
    if held and arch is None and dep.model.id is not None and dep.advertised.context_window is None \
            and _engine(dep) in DERIVABLE_ENGINES:
        from .capacity_notes import default_context_unknown
        diagnostics.append(default_context_unknown(dep, held))
    if arch is not None and dep.model.max_position_embeddings is None and arch.rope_scaling_type is None \
            and arch.max_position_embeddings and dep.model.id is not None:
        # Trained positions from the catalog, only for models without RoPE scaling, whose
        # config value is the served limit (scaled models need the engine's own derivation).
        trained = Val(arch.max_position_embeddings, dep.model.id.source)
        dep = replace(dep, model=replace(dep.model, max_position_embeddings=trained))
    return dep, diagnostics


def _default_accelerator(dep: Deployment, env: CapacityEnv) -> Optional[Tuple[str, str]]:
    """(device, where it was set) from the config's default-accelerator for this file's path."""
    if not env.default_accelerators:
        return None
    from ctxlint.globs import glob_match, relative_posix

    rel = relative_posix(dep.file, env.root) if dep.file not in ("-", "") else None
    target = rel if rel is not None else dep.file.replace("\\", "/")
    for pattern, device in env.default_accelerators:
        if glob_match(pattern, target):
            where = f"default-accelerator in {env.config_path}" + ("" if pattern == "**" else f" for {pattern}")
            return device, where
    return None


def _engine(dep: Deployment) -> Optional[str]:
    return dep.engine.name.value if dep.engine.name is not None else None


def _role(dep: Deployment, role: Role, arch: Optional[ModelArch], resolution, assumed, env) -> Role:
    if role.accelerators.type is None and role.available_kv_gib is None and assumed is not None \
            and role.neuron is None and role.cpu_build is None:  # a GPU default is no NeuronCore, nor the host
        # memory a CPU build's engine keeps its KV cache in (vLLM's CPU space: its default below, if unset)
        # a family word (`a100`) is any of its sizes, as a label's is; a device the config defines stays its own
        written = written_device(assumed[0], dict(dep.custom_accelerators) or None)
        device = Val(written.name if written is not None else assumed[0], role.source or dep.source,
                     raw=f"{assumed[0]} ({assumed[1]})")
        from ctxlint.capacity_notes import unknown_split
        if unknown_split(_engine(dep), role, arch):  # what one device holds turns on a size not known: as a stated
            role = replace(role, accelerator_withheld=device)  # device is withheld (workload_devices.device_role)
        else:
            role = replace(role, accelerators=replace(role.accelerators, type=device),
                           accelerator_assumed=assumed[1])
    default = None
    engine = _engine(dep)
    if engine == "vllm" and role.cpu_build is not None and role.available_kv_gib is None \
            and "VLLM_CPU_KVCACHE_SPACE" not in role.unresolved_settings:  # set to a value not known: no default
        from ctxlint.engines.vllm_cpu_space import default_space  # only a vLLM role on a CPU build pays for it
        gib = default_space(release_of(dep), role.engine_args)
        if gib is not None:  # its release's fixed default space (VLLM_CPU_KVCACHE_SPACE unset), at the image
            role = replace(role, available_kv_gib=Val(gib, role.cpu_build.source, raw=(
                f"VLLM_CPU_KVCACHE_SPACE unset: vLLM {release_of(dep)}'s default {gib} GiB")))
    if role.context_length is None and (engine in DERIVABLE_ENGINES or engine == "tgis") \
            and not _context_set_unknown(role, engine):  # TGIS: its length is known, its pool is not
        global default_context
        if default_context is None:
            from ctxlint.physics.context import default_context
        version = dep.engine.version
        default = default_context(engine, arch, {k: v.value for k, v in role.engine_args},
                                  str(version.value) if version is not None else None,
                                  str(version.raw) if version is not None and ":" in str(version.raw) else "")
        if default is not None and role.settings_unread is not None and not default.follows_pool:
            # an engine settings file the manifest does not hold may set it: a fixed default would be a guess
            # (one that follows the pool fits whatever the file says)
            default = None
        if default is not None:
            where = dep.model_source(role)  # this role's model (whence the default), not the first role's
            role = replace(role, context_length=Val(default.tokens, where, raw="default"), context_default=default)
    elif role.context_length is not None and engine in ("vllm", "sglang") and arch is not None \
            and arch.rope_scaling_factor and dep.model.max_position_embeddings is None:
        role = replace(role, context_limit=_derived_limit(dep, role, arch, engine))
    pool = None
    cap = engine_cap(engine, role)
    if engine == "vllm":
        role = with_release_block(dep, role)  # an override's blocks are 64 tokens from 0.34.0 (held.py)
    if role.kv_pool_tokens is not None and cap is None:
        pool = Pool(role.kv_pool_tokens.value, role.kv_pool_tokens.source, "declared")
    result = _estimate(dep, role, arch, resolution)
    derived = result is not None and bool(result.pool_tokens or result.pool_high) and (
        cap is None or result.kv_budget_bytes_per_gpu is not None)  # a cap alone is no derivation (TRT-LLM's)
    if pool is None and cap is not None and not derived:
        # no pool to cap: the engine's pool is at most the cap, so only a promise above it is sure not to fit
        promise = max((v.value for v in (role.context_length, dep.advertised.context_window)
                       if v is not None and isinstance(v.value, int)), default=0)
        if promise > cap.value:
            pool = Pool(cap.value, cap.source, "declared")
    if pool is None and derived:
        where = role.accelerators.type or role.available_kv_gib or kv_bytes_given(dep, role) \
            or role.accelerators.count
        if cap is not None and result.pool_tokens == cap.value:
            where = cap  # the engine's cap sets the pool, not the memory: the value to change
        pool = Pool(max(0, result.pool_tokens or 0), where.source if where else (role.source or dep.source),
                    "derived", explain(role, result, model_from(dep, resolution)),
                    low=result.pool_low if result.banded else None, high=result.pool_high if result.banded else None)
    if pool is not None:  # what one request can hold: every promise is held against it (held.py)
        logged = logged_reading(dep, role, arch) if engine == "vllm" and pool.origin == "declared" else None
        pool = with_held(engine, role, pool, result, logged, release_of(dep))
    role = replace(role, pool=pool, capacity=result)
    if default is not None and default.follows_pool and pool is not None and result is not None \
            and result.max_context_at_concurrency_1 is not None \
            and result.max_context_at_concurrency_1 < default.tokens:
        # The engine lowers its own default to what one request can hold in the pool.
        held = result.max_context_at_concurrency_1
        lowered = replace(default, tokens=held, why=f"{default.why}: {fmt(held)} with this pool")
        if result.banded and result.max_context_low is not None and result.max_context_high is not None:
            # an estimated pool (llama.cpp's --fit cut is measured at boot) lowers it to a band, not to one number
            band = (min(result.max_context_low, held), min(max(result.max_context_high, held), default.tokens))
            lowered = replace(lowered, band=band, why=f"{default.why}: an estimated {fmt(band[0])}-{fmt(band[1])} "
                                                      f"with this pool (point {fmt(held)})")
        role = replace(role, context_length=Val(held, role.context_length.source, raw="default"),
                       context_default=lowered)
    return role


def _derived_limit(dep: Deployment, role: Role, arch: ModelArch, engine: str):
    """The most vLLM or SGLang will start with for a RoPE-scaled model (vllm/config/model.py
    `_get_and_verify_max_len`, sglang/srt/configs/model_config.py: a larger context length is a
    ValueError unless VLLM_ALLOW_LONG_MAX_MODEL_LEN / SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is
    set). Llama 3.x's `llama3` scaling is not applied (131,072 stays 131,072); an unknown vLLM
    release takes the largest of its rules, so a refusal is never assumed where a release starts."""
    global default_context
    if default_context is None:
        from ctxlint.physics.context import default_context
    version = dep.engine.version
    return default_context(engine, arch, {k: v.value for k, v in role.engine_args},
                           str(version.value) if version is not None else None)


def _context_set_unknown(role: Role, engine: str) -> bool:
    """The context length is written but not known (`$(LEN)`): the engine's default does not apply."""
    if not role.unresolved_settings:
        return False
    from ctxlint.adapters.engine_roles import CONTEXT_SETTINGS  # only a role with unknown values pays for it
    return any(name in role.unresolved_settings for name in CONTEXT_SETTINGS.get(engine, ()))


def kv_bytes_given(dep: Deployment, role: Role) -> Optional[Val]:
    """vLLM's `--kv-cache-memory-bytes` when it is the KV budget per GPU whatever the device
    (physics.mem_vllm.explicit_kv_bytes): the pool is derivable without the device, as from a
    stated available_kv_gib (whether the weights fit beside it still needs the device)."""
    flag = role.arg("kv_cache_memory_bytes") if _engine(dep) == "vllm" else None
    if flag is None:
        return None
    from ctxlint.physics.mem_vllm import explicit_kv_bytes  # loaded with the physics (budget.py)

    version = dep.engine.version
    release = str(version.value) if version is not None else None
    given = explicit_kv_bytes(release, {"kv_cache_memory_bytes": flag.value})
    return flag if given is not None else None


def weights_of(dep: Deployment, role: Role, resolution):
    """The weight format of one role: the resolution's, or its engine's quantization flag where the flag
    decides (an unquantized checkpoint; vLLM and SGLang load a quantized one as stored: quant_flag)."""
    if not _PHYSICS:
        _physics()
    engine = _engine(dep) or ""
    name = _QUANT_FLAG.get(engine)
    flag = role.arg(name) if name else None
    own = resolution.weights if resolution is not None else None
    if flag is None or not isinstance(flag.value, str) or not flag.value.strip():
        return own
    from ctxlint.resolution.quant_flag import with_flag  # only a role with a flag pays for the import
    loads = with_flag(engine, flag.value, own, "", flag_format(flag.value), on_cpu(role))[0]
    if own is not None and own.alt and loads is not None and loads is not own and not loads.alt:
        # a checkpoint whose format is a band (a served name's, a folder's: resolution/stated_format.py) may be one
        # the engine loads as stored whatever the flag says (quant_flag.decide): the flag's format is the point,
        # the band's other formats stay open beside it
        others = tuple(f for f in (own, *own.alt) if f.key != loads.key)
        loads = replace(loads, alt=tuple(replace(f, alt=(), alt_why="") for f in others), alt_why=own.alt_why)
    return loads



def _estimate(dep: Deployment, role: Role, arch: Optional[ModelArch], resolution):
    engine = _engine(dep)
    if arch is None or engine not in DERIVABLE_ENGINES:
        return None
    if role.accelerators.type is None and role.available_kv_gib is None and kv_bytes_given(dep, role) is None:
        return None
    if role.neuron is not None and role.available_kv_gib is None:
        return None  # the physics is of GPU memory: a NeuronCore's is not in the catalog (ctxlint.neuron)
    if engine == "llamacpp" and role.cpu_build is not None and role.available_kv_gib is None:
        return None  # `-ngl 0`: no layer, weights or KV, is on the GPU (llamacpp_split.host_kv), whatever it is
    if role.available_kv_gib is None and on_gaudi(role):
        return None  # an HPU's KV memory is not sized by the CUDA rules (physics/gaudi.py): stated, or unknown
    par = role.parallelism
    context = role.context_length or dep.advertised.context_window
    settings: Dict[str, Any] = {key: val.value for key, val in role.engine_args}
    if engine == "trtllm":
        from ctxlint.physics.trt_warmup import mark_unknown  # only a TensorRT-LLM role pays for it
        mark_unknown(role, settings)
    if engine == "vllm" and (on_cpu(role) or role.neuron is not None):
        settings["block_size"] = vllm_block(role)  # the CPU backend's default and Neuron's differ from CUDA's
    return estimate(CapacityInput(
        arch=arch, engine=engine,
        accelerator=role.accelerators.type.value if role.accelerators.type else None,
        accelerator_count=role.accelerators.count.value if role.accelerators.count else None,
        tp=par.tp, pp=par.pp, dp=par.dp,
        kv_cache_dtype=role.kv_cache_dtype.value if role.kv_cache_dtype else "auto",
        settings=settings,
        available_kv_bytes=role.available_kv_gib.value * GIB if role.available_kv_gib else None,
        context_length=context.value if context else None,
        draft_layers=draft_layers(arch, engine, role.draft_layers),  # MiniMax-M3 on vLLM: its num_mtp_modules
        extra_accelerators=dict(dep.custom_accelerators) or None,
        weights=weights_of(dep, role, resolution),
        engine_version=str(dep.engine.version.value) if dep.engine.version is not None else None,
        engine_build=str(dep.engine.build.value) if dep.engine.version is None and dep.engine.build else None,
    ))
