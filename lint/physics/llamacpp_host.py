"""llama.cpp roles that keep part of the model, or its KV cache, in host memory: no memory need per GPU is given.

The memory need ctxlint states for a role without a device (needs.py) is what one request needs with the whole
model and its KV cache on the GPU. A llama-server command can put part of either in host memory instead
(flags: ggml-org/llama.cpp common/arg.cpp, lint/engines/flags_llamacpp.py):

- `-ngl N` offloads N layers, the output layer counted as one more (src/llama-model.cpp load_tensors:
  act_gpu_layers = min(ngl, n_layer + 1); llamacpp_cells.py), so N up to the model's layers keeps at least one
  layer on the CPU, and `-ngl 0` (or `--device none`) all of them, with their KV;
- `-ot PATTERN=BUFFER` (--override-tensor) puts the tensors a pattern names on that buffer: `exps=CPU`, the
  MoE experts' weights in host memory, or on another GPU;
- `--cpu-moe` and `--n-cpu-moe N` keep the experts of every layer, or of the first N, in host memory;
- `-nkvo` (--no-kv-offload) keeps the KV cache in host memory;
- any of them (or `--device`) set to a value not known (`-ngl $NGL`) may do either.

`--rpc HOST:PORT,...` adds remote rpc-server devices that take a share of the layers by a split the file cannot
settle (remote_share): there too the local GPUs' share is not worked out.

What then stays on each GPU is not worked out here, and the whole model's need is far too high: sweep c31's
ACupofAir/vllm-benchmark@ebcac650c3e92bda88b036795a604cfeb0a3a524:openwebui/BMG/llama-server-q4km.sh runs
DeepSeek-R1 Q4_K_M with `-ngl 999 -ot exps=CPU` and read "needs >= 381.9 GiB per GPU". CTX208 says why
instead. A stated device still gets its verdict: llama.cpp's pool is its `-c` cells whatever sits where
(physics/llamacpp.py).
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping, Optional

from ctxlint.model import Role


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


# llama.cpp's settings that place weights or KV, with their flags, in the order a message names them: the one
# reading of them here and in llamacpp_cells.py (CTX203/CTX209's "nothing moves off the GPU"). `-ngl` is read by its
# number; the others move something off the GPU when set at all (`moving`). `--rpc` adds remote devices that take a
# share of the layers: off this host's GPUs, but not into host memory, so `unmodelled` names it apart (remote_share).
PLACEMENT = (("n_gpu_layers", "-ngl"), ("override_tensor", "-ot"), ("cpu_moe", "--cpu-moe"),
             ("n_cpu_moe", "--n-cpu-moe"), ("no_kv_offload", "-nkvo"), ("device", "--device"), ("rpc", "--rpc"))
# One set to a value ctxlint cannot resolve (`-ngl $NGL`) may keep part of the model in host memory as well as not.
_HOST_PLACING = PLACEMENT[:-1]


# The MoE flags only reach expert tensors: llama.cpp's --cpu-moe and --n-cpu-moe add CPU overrides whose pattern is
# LLM_FFN_EXPS_REGEX, `\.ffn_(up|down|gate|gate_up)_(ch|)exps` (common/common.h; per block for --n-cpu-moe,
# common/arg.cpp), tensors a dense model does not have: on one they keep nothing in host memory, and the whole
# model's need stands. The same goes for an -ot pattern that can only name expert tensors (`exps=CPU`).
_MOE_ONLY = ("cpu_moe", "n_cpu_moe")


def _experts_only(pattern: str) -> bool:
    """Whether an -ot pattern can only name MoE expert tensors (`exps`, `\\.ffn_(up|down)_exps`, `blk\\.1\\d\\..*exps`):
    the literal `exps` outside any group and no alternation outside one. Anything else may name a dense tensor."""
    depth, top = 0, []
    for ch in pattern:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            if ch == "|":
                return False
            top.append(ch)
    return "exps" in "".join(top)


def moves_only_experts(key: str, value: Any) -> bool:
    """Whether a setting only moves MoE expert tensors (--cpu-moe, --n-cpu-moe, an -ot whose every pattern names only
    experts), which a dense model does not have: on one it keeps nothing off the GPU."""
    if key in _MOE_ONLY:
        return True
    if key != "override_tensor":
        return False
    parts = [part.rsplit("=", 1)[0] for part in str(value).split(",") if "=" in part]
    return bool(parts) and all(_experts_only(part) for part in parts)


def moving(settings: Mapping[str, Any], dense: bool = False, kv: bool = True) -> Iterator[str]:
    """The settings (PLACEMENT's, but -ngl) set to move weights, or (`kv`) the KV cache, off the GPU: any value
    but unset, false, 0 or "" (a value not known too); on a `dense` model not one that only names MoE experts."""
    for key, _ in PLACEMENT[1:]:
        value = settings.get(key)
        if key == "no_kv_offload" and not kv or value in (None, False, 0, "", "0"):
            continue
        if not (dense and moves_only_experts(key, value)):
            yield key


def host_share(role: Role, engine: Optional[str], layers: Optional[int], dense: bool = False) -> str:
    """What keeps part of a llama.cpp role's model or KV in host memory (the flag and what it does), else "".
    `dense`: the model is known to have no MoE experts, so what only names experts keeps nothing off the GPU."""
    if engine != "llamacpp":
        return ""
    from .llamacpp import _on  # llama.cpp's truthy spellings; only a llama.cpp role pays for the import

    settings: Mapping[str, Any] = {key: val.value for key, val in role.engine_args}
    device = settings.get("device")
    if device is not None and str(device).strip().lower() == "none":
        return "--device none keeps every layer on the CPU"
    ngl = _int(settings.get("n_gpu_layers"))
    if ngl == 0:
        return "-ngl 0 keeps every layer and its KV on the CPU"
    if ngl is not None and ngl > 0 and layers and ngl <= layers:
        return (f"-ngl {ngl} offloads {ngl} of the {layers + 1} layers llama.cpp counts (the model's {layers} and "
                "its output layer), so the rest stay on the CPU with their KV")
    override = settings.get("override_tensor")
    if override not in (None, "", False):
        parts = [part.rsplit("=", 1) for part in str(override).split(",") if "=" in part]
        if dense:  # expert tensors a dense model does not have
            parts = [part for part in parts if not _experts_only(part[0])]
        targets = {part[-1].strip().upper() for part in parts}
        if any(t.startswith("CPU") for t in targets):
            return f"-ot {override} keeps the tensors it names in host memory"
        if targets or not dense:
            return f"-ot {override} puts the tensors it names on a device of its own choosing"
    if not dense and "cpu_moe" in settings and _on(settings["cpu_moe"]):
        return "--cpu-moe keeps every layer's MoE experts in host memory"
    moe_layers = _int(settings.get("n_cpu_moe"))
    if not dense and moe_layers is not None and moe_layers > 0:
        return f"--n-cpu-moe {moe_layers} keeps the MoE experts of the first {moe_layers} layers in host memory"
    if "no_kv_offload" in settings and _on(settings["no_kv_offload"]):
        return "-nkvo keeps the KV cache in host memory"
    return ""


def unmodelled(role: Role, engine: Optional[str], layers: Optional[int], dense: bool = False) -> str:
    """Why no memory need per GPU is given for a llama.cpp role that keeps, or may keep, part of its model in host
    memory (`dense`: as for host_share)."""
    if engine != "llamacpp":
        return ""
    unknown = next((flag for key, flag in _HOST_PLACING
                    if key in role.unresolved_settings and not (dense and key in _MOE_ONLY)), None)
    if unknown is not None:
        return (f"llama.cpp may not hold the whole model on the GPU here ({unknown} is set to a value ctxlint cannot "
                "resolve, which may keep part of it in host memory), so the whole model's need may be too high")
    why = host_share(role, engine, layers, dense)
    if why:
        return (f"llama.cpp does not hold the whole model on the GPU here ({why}), and what stays on each GPU is not "
                "worked out, so the whole model's need would be too high")
    return remote_share(role)


def remote_share(role: Role) -> str:
    """Why the local GPUs' share is not known when `--rpc` adds rpc-server devices (else ""). llama.cpp puts them at
    the front of its device list and splits the offloaded layers over every device by each one's free memory, or by
    --tensor-split over them all (ggml-org/llama.cpp@b11434: common/arg.cpp add_rpc_devices, src/llama.cpp "add RPC
    servers at the front of the list", src/llama-model.cpp load_tensors "default split, by free memory"). A remote
    server's free memory, and how many devices it exposes, is not in the file: so neither is the local share."""
    settings = {key: val.value for key, val in role.engine_args}
    servers = settings.get("rpc")
    if "rpc" in role.unresolved_settings:
        return ("llama.cpp may not hold the whole model on this host's GPUs here (--rpc is set to a value ctxlint "
                "cannot resolve, which may add remote rpc-server devices that take a share of the layers), so the "
                "whole model's need may be too high")
    if servers in (None, False, "") or not str(servers).strip():
        return ""
    # a --device list is used as given, in place of the RPC-first default list (src/llama.cpp): one naming no RPC
    # device (RPC0, RPC[host:port]) leaves the remote servers out of the split, so the local GPUs hold every layer
    device = settings.get("device")
    if "device" not in role.unresolved_settings and device not in (None, False, "") and not any(
            part.strip().upper().startswith("RPC") for part in str(device).split(",")):
        return ""
    named = [part.strip() for part in str(servers).split(",") if part.strip()]
    split = settings.get("tensor_split")
    by = (f"by --tensor-split {split} over the remote devices first and then the local ones, and how many devices "
          "each server exposes is not in the file") if split not in (None, "", False) else \
        "by each device's free memory, which for a remote server is not in the file"
    return (f"llama.cpp does not hold the whole model on this host's GPUs here (--rpc {servers} adds "
            f"the devices of {len(named)} remote rpc-server{'s' if len(named) != 1 else ''}, which take a share of the "
            f"layers, split {by}), so the whole model's need would be too high")
