"""llama.cpp roles whose stated `-c` cells cannot be allocated on their GPU: the server exits at startup.

llama.cpp allocates the KV cache of all `-c` cells when it creates the context, each offloaded layer's KV
on that layer's device, and the weights of the offloaded layers beside it; more than the device holds is a
failed CUDA allocation and the server exits. Only where nothing lets llama.cpp move anything off the GPU:

- `--fit` (common/fit.cpp, ggml-org/llama.cpp@6d0892ba065b38ee790b825fdc8fb8e2c453e6dd) never lowers a `-c` the
  user set ("context size set by user to N -> no change"), and when `n_gpu_layers` differs from
  llama_model_default_params()'s it throws "n_gpu_layers already set by user to N, abort", which
  common_fit_params catches as a warning ("failed to fit params to free device memory"): the load goes on
  with the parameters as given. With the default n_gpu_layers it moves layers (or MoE experts) to system
  memory instead, so an unset `-ngl` (or `-ngl -1`/`auto`) is never held here.
- `-ngl 999` is left out unless fit cannot run (`-fit off`, or a build before it): builds before --fit default
  llama_model_default_params().n_gpu_layers to 999 (ggml-org/llama.cpp@00342301d01add50835550e8a916f12097d94517:
  src/llama-model.cpp), and whether builds with --fit still do is not read here, so 999 may be the default
  fit compares against. Any other `-ngl N` with N > the model's layers puts every layer and its KV on the GPU:
  llama.cpp's load_tensors counts the output layer as one more (act_gpu_layers = min(ngl, n_layer + 1)), and an
  `-ngl` equal to the layers keeps one on the CPU: the output layer in older builds (i_gpu_start = n_layer - ngl),
  layer 0 and its KV in later ones (n_layer + 1 - ngl), ggml-org/llama.cpp src/llama-model.cpp.
- --fit came with ggml-org/llama.cpp#16653 (merged December 2025; its branch was still built as b7003 in
  November), so a build up to b7003 has none; a later build may have it.
- `-nkvo` keeps the KV in host memory; `-ot`, `--cpu-moe`, `--n-cpu-moe` move weights to the CPU; `--device`
  and `--rpc` choose or add devices: with any of them, nothing here. A partial `-ngl` and several GPUs are
  not modelled (no error): what lands on which device is not worked out.

The need counts only what ctxlint's KV bytes per token count (window and recurrent layers' own caches are
not in it, so it is a lower bound), with V at -ctv's type where it differs from -ctk's (physics.kv), and
it is held against the most generous end of the memory band plus the token embeddings, which llama.cpp keeps on the CPU (its input layer), at 16 bits.
"""
# No `from __future__ import annotations` here: with it, typing.NamedTuple turns each field's annotation (a
# string) into a ForwardRef, whose builtin compile() is the run's first and initializes the AST types (~10 M
# instructions, ~3% of a one-file check, issue 15). Every annotation below is a runtime expression on 3.9.

from typing import Any, List, Mapping, NamedTuple, Optional

from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment, Role, Source
from ctxlint.physics.llamacpp_host import _int, moving  # one reading of llama.cpp's integers and placement flags

GIB = 2**30
FIT_ABSENT_THROUGH = 7003  # builds up to this one have no --fit (ggml-org/llama.cpp#16653, see above)
ALL_LAYERS_DEFAULT = 999  # llama_model_default_params().n_gpu_layers before --fit


class Shortfall(NamedTuple):
    cells: int
    bytes_per_cell: float
    need: float  # cells x bytes per cell, on the GPU
    room: float  # the most the GPU leaves for it: the band's top, plus the embeddings kept on the CPU
    point: float  # the same at the estimate's point
    why: str  # why nothing moves off the GPU
    source: Source  # the -c value


def off_gpu(dep: Deployment, role: Role, kv: bool = False) -> Optional[str]:
    """What keeps some of a llama.cpp role's weights (`kv`: or its KV cache) in host memory, so that the GPU need
    not hold them all: a partial `-ngl N` (N <= the model's layers: load_tensors puts layer il on the CPU while
    il < n_layer + 1 - N, and a layer's KV cache beside it), `-ot`/`--cpu-moe`/`--n-cpu-moe` (tensors moved to the
    CPU), `--device`/`--rpc` (other devices take a share), and for the KV `-nkvo`. None for another engine or
    when nothing does: then whole weights over the GPU's memory (CTX203), or no KV room left (CTX209), stay sure."""
    if dep.engine.name is None or dep.engine.name.value != "llamacpp":
        return None
    settings = {key: val.value for key, val in role.engine_args}
    arch = dep.arch
    dense = arch is not None and not arch.num_experts and arch.expert_params_b == 0
    mover = next(moving(settings, dense, kv), None)
    if mover is not None:
        return mover
    ngl = _int(settings.get("n_gpu_layers"))
    layers = dep.arch.num_layers if dep.arch is not None else None
    if ngl is not None and layers and 0 < ngl <= layers:
        return "n_gpu_layers"
    if ngl is None or ngl < 0 or ngl == ALL_LAYERS_DEFAULT:
        # unset, auto, all, or 999: the default n_gpu_layers, which --fit (on by default where a build has it)
        # lowers to what the GPU holds, and which was 0 (no layer offloaded; 999 only for Metal) before
        # llama_model_default_params() took 999 (ggerganov/llama.cpp@0028010d01447c079f98bc33f06fca691fc99905:
        # llama.cpp): which builds between the two place every layer on the GPU by default is not read here
        from ctxlint.physics.llamacpp import _on, build_number
        version = dep.engine.version
        build = build_number(str(version.value) if version is not None else None)
        fit_off = "fit" in settings and not _on(settings["fit"])
        if not (ngl == ALL_LAYERS_DEFAULT and (fit_off or (build is not None and build <= FIT_ABSENT_THROUGH))):
            return "n_gpu_layers default"
    return None


def pinned(settings: Mapping[str, Any], layers: int, version: Optional[str]) -> Optional[str]:
    """Why every layer's weights and KV stay on the GPU, or None when llama.cpp may move some off it."""
    if next(moving(settings), None) is not None:
        return None
    ngl = _int(settings.get("n_gpu_layers"))
    if ngl is None or ngl <= layers:  # unset, auto, all (<= -2), or partial (= layers: one stays on the CPU)
        return None
    from ctxlint.physics.llamacpp import _on, build_number  # the physics' readers; only a llama.cpp role pays

    build = build_number(version)
    fit_off = "fit" in settings and not _on(settings["fit"])
    before_fit = build is not None and build <= FIT_ABSENT_THROUGH
    if ngl == ALL_LAYERS_DEFAULT and not (fit_off or before_fit):
        return None  # may be the default n_gpu_layers: --fit would then move layers
    placed = f"-ngl {ngl} puts all {layers} layers and their KV on the GPU"
    if fit_off:
        return f"{placed} and -fit off moves nothing off it"
    if before_fit:
        return f"{placed} and build b{build} predates --fit, which could move them"
    return (f"{placed} and --fit moves no layers the user placed (\"n_gpu_layers already set by user\": it loads "
            "the parameters as given)")


def shortfall(dep: Deployment, role: Role) -> Optional[Shortfall]:
    """The role's stated cells and what they need, when its GPU is sure not to hold them (see above)."""
    cap, arch = role.capacity, dep.arch
    engine = dep.engine.name.value if dep.engine.name is not None else None
    if engine != "llamacpp" or cap is None or arch is None or not cap.budget_is_estimate:
        return None
    if cap.kv_budget_high is None or cap.kv_budget_bytes_per_gpu is None or not cap.kv_bytes_per_token_per_gpu:
        return None
    count = role.accelerators.count.value if role.accelerators.count is not None else 1
    if count != 1 or role.parallelism.tp * role.parallelism.pp != 1:
        return None
    ctx = role.arg("ctx_size") or role.arg("n_ctx")  # physics/llamacpp.py reads n_ctx where ctx_size is unset
    cells = _int(ctx.value) if ctx is not None else None
    if not cells or cells <= 0:
        return None  # no -c: --fit sizes the context (physics/llamacpp.py), or the model's own
    settings = {key: val.value for key, val in role.engine_args}
    version = str(dep.engine.version.value) if dep.engine.version is not None else None
    why = pinned(settings, arch.num_layers, version)
    if why is None:
        return None
    from ctxlint.no_kv_memory import starved
    if starved(dep, role) in ("weights", "kv"):  # CTX203, or CTX209 for no KV at all: that finding says it
        return None
    bpt = float(cap.kv_bytes_per_token_per_gpu)  # V at -ctv's type already (physics.kv_dtypes.v_bytes)
    on_cpu = (arch.vocab_size or 0) * (arch.hidden_size or 0) * 2  # token embeddings: llama.cpp's input layer
    on_cpu = min(on_cpu, cap.weights_low_per_gpu or cap.weights_bytes_per_gpu or 0)
    need, room = cells * bpt, cap.kv_budget_high + on_cpu
    if need <= room or room <= 0:
        return None
    return Shortfall(cells, bpt, need, room, cap.kv_budget_bytes_per_gpu + on_cpu, why, ctx.source)


def diagnostics(dep: Deployment) -> List[Diagnostic]:
    from ctxlint.capacity import NO_KV_MEMORY  # CTX209's kind: the engine has no memory for the KV it is told to hold

    out: List[Diagnostic] = []
    for role in dep.roles:
        short = shortfall(dep, role)
        if short is not None:
            out.append(Diagnostic(NO_KV_MEMORY, _text(role, short), short.source, dep.display_name))
    return out


def _text(role: Role, s: Shortfall) -> str:
    cap = role.capacity
    held_point = max(0, int(s.point // s.bytes_per_cell)) // 256 * 256
    held_high = max(0, int(s.room // s.bytes_per_cell))
    types = {str(role.arg(k).value).lower() if role.arg(k) is not None else "f16" for k in ("cache_type_k", "cache_type_v")}
    quant = f" (-ctk q8_0 -ctv q8_0: {s.need * 17 / 32 / GIB:.2f} GiB; V needs flash attention, -fa)" \
        if types == {"f16"} else ""
    return (f"{s.need / GIB:.2f} GiB > {s.room / GIB:.2f} GiB: llama.cpp allocates all -c {s.cells:,} cells up front, "
            f"{s.cells:,} cells x {s.bytes_per_cell:,.0f} B = {s.need / GIB:.2f} GiB of KV on the GPU, but "
            f"{cap.accelerator} leaves at most {s.room / GIB:.2f} GiB for it (estimate {s.point / GIB:.2f} GiB: its "
            f"memory less the CUDA context, the weights ({(cap.weights_bytes_per_gpu or 0) / GIB:.2f} GiB, less the "
            f"token embeddings llama.cpp keeps on the CPU) and the compute buffers); {s.why}, so the allocation "
            f"fails and the server exits. Lower -c to about {held_point:,} ({held_high:,} at the most; -c is the "
            f"total over all -np slots), quantize the KV cache{quant}, leave -ngl unset so --fit can move layers to "
            "the CPU (slower), or use a GPU with more memory")
