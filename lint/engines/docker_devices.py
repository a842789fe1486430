"""The GPUs a `docker run` (podman, nerdctl) line with no `--gpus` gives its container by `--runtime nvidia` or by
`--device`: a count where the line states it, else GPUs not counted, never one. docker_run.requested_gpus imports
this only for a line with such an option (llama.cpp splits its layers over every GPU it sees, so one GPU read
where the host gives all of them is a wrong pipeline: a false CTX203/CTX209, or a false fit)."""
from __future__ import annotations

from typing import Optional, Sequence

from ctxlint.lazyre import lazy_compile

from .docker_run import GpuRequest, _device_options, parse_run

# NVIDIA's runtime hook exposes the devices the container's NVIDIA_VISIBLE_DEVICES lists; unset, every GPU on a
# legacy CUDA image (CUDA_VERSION without NVIDIA_REQUIRE_CUDA), else none
# (NVIDIA/nvidia-container-toolkit@d34b3046758cb1a5db606b2a39519c731bbf9f56:internal/config/image/cuda_image.go
# devicesFromEnvvars). The image's own ENV counts too, and CUDA-based images set NVIDIA_VISIBLE_DEVICES=all
# (the `# nvidia-container-runtime` block of NVIDIA's CUDA Dockerfiles): with no `-e` on the line the count is the
# image's and the host's, not known. `all` is every GPU; `none`, `void` and an empty value none.
_NO_DEVICE = frozenset({"", "none", "void"})
# AMD's runtime (`--runtime amd`, the AMD Container Toolkit's amd-container-runtime) adds the GPUs the container's
# AMD_VISIBLE_DEVICES lists, none when it is unset (ROCm/container-toolkit@192fe8e9e7044562440ae99ba44f913f7ebb81c9:
# internal/oci/oci.go getAMDEnv reads the spec's environment, the image's ENV included): the same reading.
RUNTIME_VARIABLES = {"nvidia": "NVIDIA_VISIBLE_DEVICES", "amd": "AMD_VISIBLE_DEVICES"}
# ROCm: /dev/kfd is the compute interface all GPUs share, each GPU has its own /dev/dri/renderD<node>, and passing
# the whole /dev/dri folder gives every GPU (rocm.docs.amd.com/en/docs-5.4.3/deploy/docker.html "Accessing GPUs in
# containers", "Restricting a container to a subset of the GPUs"; Intel's GPUs are render nodes there too).
# NVIDIA's own device node per GPU is /dev/nvidia<N> (beside /dev/nvidiactl and /dev/nvidia-uvm, which are no GPU).
_ONE_GPU_NODE = lazy_compile(r"/dev/(?:dri/renderD|nvidia)[0-9]+")
# A CDI device name (`nvidia.com/gpu=0`, `amd.com/gpu=1`): one device each, `=all` every one of its kind.
_CDI_GPU = lazy_compile(r"(?:nvidia|amd)\.com/gpu=(.+)")
_NO_GPU_NODES = ("/dev/kfd", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-modeset", "/dev/nvidia-caps",
                 "/dev/neuron", "/dev/accel")


def device_gpus(tokens: Sequence, texts: Sequence[str]) -> Optional[GpuRequest]:
    """The GPUs a line with no `--gpus` gives its container (above): the count its render or GPU device nodes,
    its CDI GPU names or `--runtime nvidia` with `-e NVIDIA_VISIBLE_DEVICES=<ids>` state; `uncounted` (the words,
    as written) for every GPU of the host (`--device /dev/dri`, `nvidia.com/gpu=all`, `--runtime nvidia` with the
    image's NVIDIA_VISIBLE_DEVICES), a value not known, `--privileged`, or two of these ways at once (they may name
    the same GPUs); None when it gives none (only /dev/kfd, or no GPU option)."""
    run = parse_run(texts)
    if run is None:
        return None
    runtime, privileged, whole = None, None, None
    given: dict = {}  # {NVIDIA_VISIBLE_DEVICES | AMD_VISIBLE_DEVICES: (value or None, index of its word)}
    named: dict = {}  # the GPUs named one by one, by way: {"node" | "cdi": {name: index of its word}}
    for name, value, at in _device_options(texts, run.image, at=True):
        if name == "--runtime" and value.lower() in RUNTIME_VARIABLES:
            runtime = (at, value.lower())
        elif name == "--env" and value.partition("=")[0] in RUNTIME_VARIABLES.values():
            # `-e NAME` with no `=` passes the docker client's own value, or none (then the image's): not known
            given[value.partition("=")[0]] = (value.partition("=")[2] if "=" in value else None, at)
        elif name == "--privileged" and value.lower() not in ("false", "f", "0"):  # pflag's ParseBool
            privileged = at
        elif name == "--device" and value:
            kind, key = device_kind(value)
            if kind == "whole":
                whole = whole or (at, f"--device {value}")  # every GPU of the host, or a value not known
            elif kind:
                named.setdefault(kind, {}).setdefault(key, at)
    ways = []
    if runtime is not None:
        kind = runtime[1]
        var = RUNTIME_VARIABLES[kind]
        visible = given.get(var)
        ids = visible_ids(visible[0], kind) if visible is not None and visible[0] is not None \
            and not _unresolved(tokens[visible[1]]) else None
        if visible is None or ids is None:
            written = f"--runtime {kind}" + (
                f" ({var} the image's)" if visible is None else
                f" -e {var} (the docker client's, or the image's)" if visible[0] is None else
                f" -e {var}={visible[0]}")
            return _uncounted(tokens, visible[1] if visible else runtime[0], written)
        if ids:
            ways.append((len(ids), visible[1], f"--runtime {kind} -e {var}={visible[0]}"))
    for way, found in named.items():
        first = min(found.values())
        ways.append((len(found), first, " ".join(f"--device {v}" for v in found)))
    if whole is not None:
        return _uncounted(tokens, whole[0], whole[1])
    if not ways:
        return None
    if privileged is not None:  # every device node of the host besides those named (docker_run._more_devices)
        return _uncounted(tokens, ways[0][1], f"--privileged {ways[0][2]}")
    if len(ways) > 1:
        return _uncounted(tokens, ways[0][1], " and ".join(w[2] for w in ways))
    count, at, written = ways[0]
    token = tokens[at]
    return GpuRequest(count, token, _value_span(token, texts[at]), written=written)


def device_kind(value: str) -> tuple:
    """What one `--device` value (Compose: one `devices:` item) gives of GPUs: ("node", HOST) for one GPU's device
    node, ("cdi", NAME) for one GPU's CDI name, ("whole", value) for every GPU of the host (`/dev/dri`, a CDI
    `=all`, a node not one GPU's) or a value not known, ("", "") for no GPU (/dev/kfd alone, /dev/nvidiactl)."""
    host = value.split(":", 1)[0] if value.startswith("/") else value  # HOST[:CONTAINER[:PERMS]]
    cdi = _CDI_GPU.fullmatch(value)
    if host.startswith(_NO_GPU_NODES):
        return "", ""
    if cdi is not None and cdi.group(1).lower() != "all" and "$" not in value:
        return "cdi", value
    if _ONE_GPU_NODE.fullmatch(host):
        return "node", host
    if cdi is not None or host.rstrip("/") == "/dev/dri" or host.startswith(("/dev/dri/", "/dev/nvidia")) \
            or "$" in host:
        return "whole", value
    return "", ""


def visible_ids(value: str, runtime: str = "nvidia") -> Optional[list]:
    """The devices NVIDIA_VISIBLE_DEVICES (`runtime` "amd": AMD_VISIBLE_DEVICES) lists ([] for none), or None for
    `all`, one named twice or a value not read here (not counted)."""
    if runtime == "amd":
        return _amd_ids(value)
    if value.strip().lower() in _NO_DEVICE:
        return []
    ids = [part.strip() for part in value.split(",")]
    if any(i.lower() in ("all", "none", "void", "") for i in ids) or len(set(ids)) != len(ids):
        return None
    return ids


def _amd_ids(value: str) -> Optional[list]:
    """AMD_VISIBLE_DEVICES as the AMD runtime reads it (ROCm/container-toolkit@192fe8e9:internal/gpu-tracker/
    gpu-tracker.go parseGPUsList: `all`, else comma-separated indices, `A-B` ranges or unique ids; an empty value
    adds no GPU, internal/oci/oci.go): the GPUs, or None for `all`, a repeat or a word not read here."""
    if value == "":
        return []
    ids: list = []
    for part in value.split(","):
        low, dash, high = part.partition("-")
        if dash and low.isdigit() and high.isdigit() and int(low) <= int(high) and int(high) - int(low) < 1024:
            ids.extend(str(i) for i in range(int(low), int(high) + 1))
        elif part.isdigit() or (part.lower().startswith("0x") and len(part) > 2) or \
                (len(part) > 8 and all(c in "0123456789abcdefABCDEF" for c in part)):
            ids.append(part.lower().removeprefix("0x") if not part.isdigit() else str(int(part)))
        else:
            return None
    return ids if len(set(ids)) == len(ids) else None


def _unresolved(token) -> bool:
    return bool(getattr(token, "unresolved", ())) or "$" in token.text


def _uncounted(tokens: Sequence, at: int, written: str) -> GpuRequest:
    token = tokens[at]
    return GpuRequest(None, token, _value_span(token, token.text), uncounted=written)


def _value_span(token, text: str):
    """The span of the option's value in its word: after `=` in `--device=/dev/dri` or `-eNAME=v`, else the word."""
    name, eq, _ = text.partition("=")
    cut = len(name) + 1 if eq and name.startswith("--") and name in ("--device", "--runtime", "--env") else \
        2 if text.startswith("-e") and not text.startswith("--") and len(text) > 2 else 0
    return token.span_of(cut, len(token.text))
