"""llama.cpp's layer split: the pipeline its `--split-mode layer` default (or `--tensor-split`'s shares) makes
of the GPUs it sees. A part of workload_devices.Devices.device_role apart because only a llama.cpp engine reads
it: device_role imports it on the first one, so a run with none never loads this module (issue 15)."""
from __future__ import annotations

import re
from typing import List, Optional

from ctxlint.model import Val

from ..records import replace


def layer_split(reader, inv, facts, where=None):
    """llama.cpp splits the model's layers (and their KV) over every GPU it sees unless `-sm none`
    (`--split-mode layer` is its default, common/arg.cpp): across N GPUs that is a pipeline of N. With no GPU
    count stated, a `--tensor-split` naming N GPUs in equal shares (`-ts 1,1`) is a pipeline of N, and one in
    unequal shares (`-ts 1,2`), or over the devices a CUDA_VISIBLE_DEVICES not known leaves, leaves what the
    fullest GPU holds unknown (parallel_unknown), never one GPU holding it all (tensor_split_devices).
    A privileged container sees every GPU of its node whatever its `nvidia.com/gpu` limit (workload_records.
    privileged), so the GPUs the layers are split over are not known either, unless CUDA_VISIBLE_DEVICES names
    them: the limit's count would put a node's share of the model on too few GPUs (a false CTX203 or CTX209).
    A CUDA_VISIBLE_DEVICES of known ids fewer than the container's GPUs is what it splits over (one: no pipeline),
    not the container's count, which would be a pipeline the engine does not make (a false CTX204, a missed CTX209).
    So does a script's `docker run --gpus all` (or a count not known, or `--privileged` beside `--gpus N`:
    workload_records.gpus_uncounted), whose GPUs are the host's: one would be a guess."""
    count = reader.c.accelerator_count
    mode = inv.settings.get("split_mode")
    if facts.parallelism.pipeline is not None or \
            (mode is not None and str(mode.value).lower() not in ("layer", "row")):
        return facts
    how = f"(--split-mode {mode.value if mode is not None else 'layer, the default'})"
    seen = split_visible(reader, inv)
    if getattr(reader.c, "privileged", False) or getattr(reader.c, "gpus_uncounted", None):
        if seen == 0 and inv.settings.get("tensor_split") is not None:
            count = None  # every GPU of the host, but --tensor-split's shares name those it uses: read below
        elif not seen:  # not set (every GPU of the node), or set to ids not known
            return replace(facts, parallel_unknown=True)
        else:
            return _over_visible(reader, inv, facts, seen, f"leaves it {how}")
    if count is None:
        split = inv.settings.get("tensor_split")
        shares = tensor_split_devices(split.value if split is not None else None, seen, inv.settings.get("device"))
        if shares is None or len(shares) < 2 or inv.settings.get("rpc") is not None:
            return facts
        if len(set(shares)) > 1 or seen is None:  # uneven, or over devices not known
            return replace(facts, parallel_unknown=True)
        at = where(split) if where is not None else reader.c.node.source(reader.file)
        return _pipeline(facts, len(shares), at, f"--tensor-split {split.value} names {how}")
    if seen and seen < count.value:  # CUDA_VISIBLE_DEVICES of known ids leaves it fewer than the container has
        return _over_visible(reader, inv, facts, seen, f"leaves it of {count.value} {how}")
    if count.value < 2:
        return facts
    return _pipeline(facts, count.value, count.source, f"it sees {how}")


def _over_visible(reader, inv, facts, seen: int, tail: str):
    """The pipeline over the `seen` GPUs a CUDA_VISIBLE_DEVICES of known ids leaves llama.cpp (none for one, or
    with `--rpc` servers, whose devices are not counted here)."""
    if seen < 2 or inv.settings.get("rpc") is not None:
        return facts
    return _pipeline(facts, seen, reader.device_setting("CUDA_VISIBLE_DEVICES")[1], f"CUDA_VISIBLE_DEVICES {tail}")


def _pipeline(facts, n: int, at, over: str):
    """`facts` with llama.cpp's layer split over `n` GPUs as its pipeline, `over` saying which GPUs."""
    how = f"llama.cpp splits its layers over the {n} GPUs {over}"
    return replace(facts, parallelism=replace(facts.parallelism, pipeline=Val(n, at, raw=how)))


def split_visible(reader, inv) -> Optional[int]:
    """How many devices CUDA_VISIBLE_DEVICES leaves llama.cpp (0: not set; None: set, to what is not known)."""
    setting = reader.device_setting("CUDA_VISIBLE_DEVICES")
    if setting is None:
        return 0
    value = setting[0]
    ids = [part.strip() for part in value.split(",")] if isinstance(value, str) else []
    return len(ids) if ids and all(part.isdigit() for part in ids) else None


def tensor_split_devices(value, visible: Optional[int], device=None) -> Optional[List[float]]:
    """The shares of the GPUs llama.cpp's `--tensor-split` gives layers to, or None when they are not known.

    common/arg.cpp splits the value at `,` and `/` into up to llama_max_devices() proportions, the rest 0
    (ggml-org/llama.cpp@0017d6fb63f9590e791a7562b276148f7bd5b7fc:common/arg.cpp, `-ts`); load_tensors
    (src/llama-model.cpp, get_layer_buft_list) takes the first n_devices() of them, one per device it uses, and
    gives each layer (and its KV) to the device whose share of the normalized running sum it falls in, so a
    device of share 0 holds none and shares past the devices present count for nothing. `visible`: the devices
    CUDA_VISIBLE_DEVICES leaves (0 or None: not set or not known, all are read); `device`: `--device`'s list,
    which picks them."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        shares = [float(part) for part in re.split(r"[,/]+", value.strip()) if part.strip()]
    except ValueError:
        return None  # llama.cpp's std::stof throws: the server does not start
    if any(s < 0 for s in shares):
        return None
    if visible:
        shares = shares[:visible]
    if device is not None:
        names = [n.strip() for n in str(device.value).split(",") if n.strip()]
        if not names or any("$" in n or n.lower() == "none" for n in names):
            return None
        shares = shares[:len(names)]
    return [s for s in shares if s > 0]


# Val.raw of a role's cpu_build that is not a CPU image but `--n-gpu-layers 0` (capacity_notes words it so)
NO_LAYERS_OFFLOADED = "n_gpu_layers=0"


def host_kv(reader, inv, where=None) -> Optional[Val]:
    """`--n-gpu-layers 0` (`-ngl 0`): no layer is on a GPU, so neither is any layer's KV cache: llama.cpp puts
    a layer's cache on the device of its layer (llama_kv_cache's constructor: `model.dev_layer(il)` when
    offloading, else the CPU; ggml-org/llama.cpp@3514e9f6e795d3b3cd88d6614f6c07e7ce6f916f:src/llama-kv-cache.cpp),
    and load_tensors puts layer il on the CPU while il < i_gpu_start = n_layer + 1 - n_gpu_layers
    (src/llama-model.cpp). The role's KV is host memory then, as a CPU build's is (workload_devices.cpu_build):
    the flag (or LLAMA_ARG_N_GPU_LAYERS) at its value, or None. The weights stay there too, so a GPU that is named
    holds neither (capacity._estimate derives nothing for it). A partial offload (0 < n < layers) splits the
    cache: not read here."""
    ngl = inv.settings.get("n_gpu_layers")
    if ngl is None or ngl.origin not in ("flag", "env") or str(ngl.value).strip() != "0":
        return None
    at = where(ngl) if where is not None else reader.c.node.source(reader.file)
    return Val(f"{ngl.flag_spelling or '--n-gpu-layers'} 0", at, raw=NO_LAYERS_OFFLOADED)
