"""The GPUs a Compose service gets where its device reservation states no count (compose.py `_gpus` read none):
`runtime: nvidia`, `devices:` device nodes or CDI names, a reservation of every GPU, `privileged: true`. A count
where the file states one, else GPUs not counted (Container.gpus_uncounted), never one GPU: llama.cpp splits its
layers over every GPU it sees. compose.py imports this only for a service with one of these keys."""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

def service_gpus(service: Node, file: str, env: list, interpolate: Callable[[str], Optional[str]]) \
        -> Tuple[Optional[Val[int]], Optional[str], bool]:
    """(count, uncounted, privileged) of a service whose reservation counts no GPU: `count` where its device nodes,
    CDI names or `runtime: nvidia` with NVIDIA_VISIBLE_DEVICES ids state it (docker_devices.py, the same reading
    as `docker run`'s options); `uncounted` as written where it gets GPUs whose number the host decides;
    `privileged`: `privileged: true` (every device node of the host)."""
    from ctxlint.engines.docker_devices import RUNTIME_VARIABLES, device_kind, visible_ids

    flag = service.get("privileged")
    privileged = flag is not None and flag.kind == SCALAR and flag.value is True
    reserved = _reserves_all(service, interpolate)
    if reserved:
        return None, reserved, privileged
    ways: List[Tuple[int, Node, str]] = []
    runtime = service.get("runtime")
    named_runtime = interpolate(str(runtime.value)) if runtime is not None and runtime.kind == SCALAR else None
    kind = str(named_runtime or "").lower()
    if kind in RUNTIME_VARIABLES:  # `runtime: nvidia`, or `runtime: amd` (AMD_VISIBLE_DEVICES)
        name = RUNTIME_VARIABLES[kind]
        var = next((v for v in env if v.name == name), None)
        ids = visible_ids(var.value, kind) if var is not None and isinstance(var.value, str) else None
        if ids is None:  # unset: the image's ENV (CUDA images: all); `all`; or a value not known
            return None, f"runtime: {kind}" + (f" with {name}={var.value}" if var is not None and
                                               var.value is not None else f" ({name} the image's)"), \
                privileged
        if ids:
            ways.append((len(ids), var.node if var.node is not None else runtime,
                         f"runtime: {kind} with {name}={var.value}"))
    devices = service.get("devices")
    named: dict = {}
    for item in devices.value if devices is not None and devices.kind == SEQ else ():
        text = item.value if item.kind == SCALAR and isinstance(item.value, str) else None
        if item.kind == MAP:  # the long syntax: `source:` is the host's device
            source = item.get("source")
            text = source.value if source is not None and isinstance(source.value, str) else None
        if text is None:
            continue
        value = interpolate(text)
        kind, key = device_kind(value) if value is not None else ("whole", text)  # `${DEV}` not known: any device
        if kind == "whole":
            return None, f"devices: {text}", privileged
        if kind:
            named.setdefault(kind, {}).setdefault(key, item)
    for found in named.values():
        ways.append((len(found), next(iter(found.values())), "devices: " + ", ".join(found)))
    if not ways:
        return None, None, privileged
    if privileged or len(ways) > 1:  # every node of the host besides those named; or two ways that may overlap
        return None, ("privileged: true and " if privileged else "") + " and ".join(w[2] for w in ways), privileged
    count, node, written = ways[0]
    return Val(count, node.source(file), raw=written), None, privileged


def _reserves_all(service: Node, interpolate: Callable[[str], Optional[str]]) -> Optional[str]:
    """How the service reserves GPUs of a number not known, as written: a device request with neither `count`
    nor `device_ids` (compose-go reads it as `count: all`: compose-spec/compose-go@e70e961c3a3acebf0800b882f1afb3dbf
    1fb74a2:transform/devices.go deviceRequestDefaults; compose-spec@170098ba:deploy.md "count"), `count: all`, a
    count not known (`${N}` unset), or `gpus: all` (transform/gpus.go: `count: all`); None otherwise."""
    devices = service.dig("deploy", "resources", "reservations", "devices")
    where = "deploy.resources.reservations.devices"
    gpus = service.get("gpus")
    if gpus is not None and gpus.kind == SCALAR:
        return f"gpus: {gpus.value}"
    if devices is None or devices.kind != SEQ:
        devices, where = gpus, "gpus"
    for device in devices.value if devices is not None and devices.kind == SEQ else ():
        if device.kind != MAP or not _is_gpu(device, where):
            continue
        count, ids = device.get("count"), device.get("device_ids")
        if count is None and ids is None:
            return f"{where} with no count (all)"
        if count is not None and count.kind == SCALAR and isinstance(count.value, str):
            text = interpolate(count.value)
            if text is None or not text.strip().isdigit():
                return f"{where} count: {count.value}"
    return None


def _is_gpu(device: Node, where: str) -> bool:
    """A `gpus:` entry always is; a reservation is with the `gpu` capability or the nvidia or amd driver."""
    if where == "gpus":
        return True
    caps = device.get("capabilities")
    names = [c.value for c in caps.value if c.kind == SCALAR] if caps is not None and caps.kind == SEQ else []
    driver = device.get("driver")
    return "gpu" in names or (driver is not None and str(driver.value).lower() in ("nvidia", "amd"))
