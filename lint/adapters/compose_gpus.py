"""The GPUs a Compose service's container sees, from every key that gives it some: its GPU device requests
(`deploy.resources.reservations.devices`, then `gpus:`), `runtime: nvidia` (or `amd`) with NVIDIA_VISIBLE_DEVICES,
`devices:` device nodes or CDI names, `privileged: true`. A count where every way the host may take states the same
one, else GPUs not counted (Container.gpus_uncounted, as written), never one GPU: llama.cpp splits its layers over
every GPU it sees. compose.py imports this only for a service with one of these keys.

Docker Compose turns each reservation, then each `gpus:` entry (with the `gpu` capability added), into one device
request (docker/compose@f72979427042620a94dd52ce78b39c68cb02c085:pkg/compose/create.go setReservations,
getDeployResources). The daemon gives a request with no driver to the driver whose capabilities hold every one it
asks (moby/moby@b985e2313a8676e18072b442911fc8f64f17d440:daemon/devices.go handleDevice,
daemon/internal/capabilities/caps.go Match): NVIDIA's are gpu, nvidia, compute, compat32, graphics, utility, video,
display; AMD's gpu, amd (daemon/devices_nvidia_linux.go, devices_amd_linux.go). Each request either appends
NVIDIA_VISIBLE_DEVICES=<its ids> to the container's environment for the runtime hook, which reads the last value
(injectNVIDIARuntimeHook), or, where nvidia-cdi-hook is installed, injects its GPUs by CDI name, each request's added
to the others' (cdiDeviceInjector). Which the host does is not in the file, so two requests count only where both
ways give the same GPUs. Either way the variable `runtime: nvidia` would read is the requests': the hook's is the
last one appended, and NVIDIA's CDI spec sets it to `void` (NVIDIA/nvidia-container-toolkit@d34b3046758cb1a5db606b2
a39519c731bbf9f56:pkg/nvcdi/wrapper.go GetCommonEdits), in place of the container's own (the CDI release the daemon vendors, v1.1.0, applies a spec's env with runtime-tools'
AddMultipleProcessEnv, which replaces a name's value: moby/moby@b985e231:vendor/tags.cncf.io/container-device-
interface/pkg/cdi/container-edits.go Apply, vendor/github.com/opencontainers/runtime-tools/generate/generate.go
addEnv; CDI's own editor does alike, cncf-tags/container-device-interface@05ae4b5bb730a036cb3f79477bd6676eea4a8c83:
internal/ociedit/spec_editor.go addEnv), so beside a request
it adds no GPU. AMD's CDI spec sets no variable (ROCm/container-toolkit@192fe8e9:internal/cdi/cdi.go), so `runtime:
amd` beside a request adds its AMD_VISIBLE_DEVICES to the GPUs CDI injects: counted only where they are the same."""
from __future__ import annotations

from typing import Callable, FrozenSet, List, Optional, Tuple

from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

# The capabilities the daemon's NVIDIA and AMD drivers answer (above): a request asking only these gets GPUs.
_NVIDIA_CAPS = frozenset(("gpu", "nvidia", "compute", "compat32", "graphics", "utility", "video", "display"))
_AMD_CAPS = frozenset(("gpu", "amd"))
# `cdi`: device_ids are CDI names, injected as they are (no hook); `nvidia.cdi` and `nvidia.runtime-hook`: the two
# ways of the `nvidia` driver, which the daemon registers under their own names too (moby/moby@b985e2313a8676e18
# 072b442911fc8f64f17d440:daemon/devices_nvidia_linux.go getNVIDIADeviceDrivers): ids or a count, as `nvidia`'s
_GPU_DRIVERS = ("nvidia", "amd", "cdi", "nvidia.cdi", "nvidia.runtime-hook")
# One device request: the GPU ids it gives (None: every GPU of the host, or a number not known), the node its
# count is read at, how it is written, and the count's raw text where it is not the number itself.
Request = Tuple[Optional[FrozenSet[str]], Node, str, Optional[str]]


def service_gpus(service: Node, file: str, env: list, interpolate: Callable[[str], Optional[str]]) \
        -> Tuple[Optional[Val[int]], Optional[str], bool]:
    """(count, uncounted, privileged) of a service: `count` where its requests, device nodes, CDI names or
    `runtime: nvidia` with NVIDIA_VISIBLE_DEVICES ids state it (docker_devices.py, the same reading as `docker
    run`'s options); `uncounted` as written where it gets GPUs whose number the host decides; `privileged`:
    `privileged: true` (every device node of the host)."""
    from ctxlint.engines.docker_devices import RUNTIME_VARIABLES, device_kind, visible_ids

    flag = service.get("privileged")
    privileged = flag is not None and flag.kind == SCALAR and flag.value is True
    requests = device_requests(service, interpolate)
    every = next((r[2] for r in requests if r[0] is None), None)
    if every is not None:
        return None, every, privileged
    ways: List[Tuple[Optional[FrozenSet[str]], Node, str, Optional[str]]] = []
    extra: Optional[Request] = None  # `runtime: amd` ids beside a request: its runtime adds them where CDI injects
    runtime = service.get("runtime")
    named_runtime = interpolate(str(runtime.value)) if runtime is not None and runtime.kind == SCALAR else None
    kind = str(named_runtime or "").lower()
    if kind in RUNTIME_VARIABLES:  # `runtime: nvidia`, or `runtime: amd` (AMD_VISIBLE_DEVICES)
        name = RUNTIME_VARIABLES[kind]
        var = next((v for v in env if v.name == name), None)
        ids = visible_ids(var.value, kind) if var is not None and isinstance(var.value, str) else None
        written = f"runtime: {kind}" + (f" with {name}={var.value}" if var is not None and var.value is not None
                                         else f" ({name} the image's)")
        if not requests:
            if ids is None:  # unset: the image's ENV (CUDA images: all); `all`; or a value not known
                return None, written, privileged
            if ids:
                ways.append((frozenset(ids), var.node if var.node is not None else runtime, written, written))
        elif kind == "amd":  # beside a request, NVIDIA's variable is the request's (above); AMD's only by the hook:
            # AMD's CDI spec sets no variable (ROCm/container-toolkit@192fe8e9e7044562440ae99ba44f913f7ebb81c9:
            # internal/cdi/cdi.go, device nodes only), so its runtime adds the container's GPUs to those injected
            if ids is None:
                return None, " and ".join([r[2] for r in requests] + [written]), privileged
            extra = (frozenset(ids), runtime, written, None)
    if requests:
        ways = [_requested(requests, extra)]
        if ways[0][0] is None:
            return None, ways[0][2], privileged
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
            return None, " and ".join([w[2] for w in ways] + [f"devices: {text}"]), privileged
        if kind:
            named.setdefault(kind, {}).setdefault(key, item)
    for found in named.values():
        written = "devices: " + ", ".join(found)
        ways.append((frozenset(found), next(iter(found.values())), written, written))
    if not ways:
        return None, None, privileged
    if privileged or len(ways) > 1:  # every node of the host besides those named; or two ways that may overlap
        return None, ("privileged: true and " if privileged else "") + " and ".join(w[2] for w in ways), privileged
    ids, node, _, raw = ways[0]
    return Val(len(ids or ()), node.source(file), raw=raw), None, privileged


def _requested(requests: List[Request], extra: Optional[Request] = None) -> tuple:
    """The GPUs the requests give: the last request's ids where the runtime hook reads the variable, all of theirs
    where CDI injects them (and `extra`'s, the `runtime: amd` variable's, which AMD's runtime adds then); None (as
    written) where the two differ (CDI names beside ids: their overlap is not known)."""
    written = " and ".join(r[2] for r in requests + ([extra] if extra is not None else []))
    if len(requests) > 1 and any(any(i.startswith("cdi:") for i in r[0] or ()) for r in requests):
        return None, requests[-1][1], written, None
    hook = requests[-1][0]
    cdi = frozenset().union(*(r[0] or () for r in requests + ([extra] if extra is not None else [])))
    if hook is None or hook != cdi:
        return None, requests[-1][1], written, None
    return hook, requests[-1][1], written, requests[-1][3] if len(requests) == 1 else written


def device_requests(service: Node, interpolate: Callable[[str], Optional[str]]) -> List[Request]:
    """The service's GPU device requests in the order Compose makes them: each GPU reservation, then each `gpus:`
    entry. A request with neither `count` nor `device_ids` is every GPU (compose-go reads it as `count: all`:
    compose-spec/compose-go@e70e961c3a3acebf0800b882f1afb3dbf1fb74a2:transform/devices.go deviceRequestDefaults;
    compose-spec@170098ba:deploy.md "count"), as `count: all`, `gpus: all` (transform/gpus.go) and a count not
    known (`${N}` unset) are."""
    out: List[Request] = []
    where = "deploy.resources.reservations.devices"
    for source in (service.dig("deploy", "resources", "reservations", "devices"), service.get("gpus")):
        if source is not None and source.kind == SCALAR and where == "gpus":
            out.append((None, source, f"gpus: {source.value}", None))
        for device in source.value if source is not None and source.kind == SEQ else ():
            request = _request(device, where, interpolate) if device.kind == MAP and (where == "gpus" or
                                                                                     _is_gpu(device)) else None
            if request is not None:
                out.append(request)
        where = "gpus"
    return out


def _request(device: Node, where: str, interpolate: Callable[[str], Optional[str]]) -> Optional[Request]:
    count, ids = device.get("count"), device.get("device_ids")
    driver = device.get("driver")
    if driver is not None and str(driver.value).lower() == "cdi" and ids is not None and ids.kind == SEQ:
        return _cdi_request(ids, where, interpolate)
    if ids is not None and ids.kind == SEQ and ids.value and count is None:
        named = _device_ids(ids, interpolate)
        written = f"{where} device_ids: [" + ", ".join(str(i.value) for i in ids.value) + "]"
        return (None, ids, written, None) if named is None else \
            (frozenset(named), ids, written, f"{len(named)} device_ids")
    if count is None:
        return None, device, f"{where} with no count (all)", None
    # compose-go reads a string count as an integer (types/device.go), after interpolation
    text = interpolate(count.value) if isinstance(count.value, str) else \
        None if isinstance(count.value, bool) or not isinstance(count.value, int) else str(count.value)
    written = f"{where} count: {count.value}"
    if text is None or not text.strip().isdigit():
        return None, count, written, None
    return frozenset(str(i) for i in range(int(text))), count, written, \
        count.value if isinstance(count.value, str) else None


def _cdi_request(ids: Node, where: str, interpolate: Callable[[str], Optional[str]]) -> Optional[Request]:
    """A `driver: cdi` reservation: its device_ids are CDI device names (`nvidia.com/gpu=0`), one GPU each, `=all`
    every one (docker_devices.device_kind, as `devices:` CDI names are read); None where it names no GPU (another
    vendor's device, `vendor.com/nic=0`: no GPU request, it gives none and sets no NVIDIA_VISIBLE_DEVICES)."""
    from ctxlint.engines.docker_devices import device_kind

    written = f"{where} driver: cdi device_ids: [" + ", ".join(str(i.value) for i in ids.value) + "]"
    names = []
    for item in ids.value:
        value = interpolate(item.value) if item.kind == SCALAR and isinstance(item.value, str) else None
        kind, key = device_kind(value) if value is not None else ("whole", "")
        if kind == "whole":
            return None, ids, written, None
        if kind:
            names.append(f"cdi:{key}")
    if not names:
        return None
    return frozenset(names), ids, written, f"{len(set(names))} device_ids"


def _device_ids(ids: Node, interpolate: Callable[[str], Optional[str]]) -> Optional[list]:
    """Docker joins the IDs with commas for the NVIDIA runtime (moby/moby@5c487368:daemon/nvidia_linux.go
    setNvidiaGPUs), so `['0,1,2,3']` is four GPUs, as `['0', '1', '2', '3']` is; None for one not known."""
    found = []
    for item in ids.value:
        if item.kind != SCALAR or item.value is None or isinstance(item.value, bool):
            return None
        text = interpolate(item.value) if isinstance(item.value, str) else str(item.value)
        if text is None:
            return None  # a variable of the host's: the count is not known
        found.extend(part.strip() for part in text.split(",") if part.strip())
    return list(dict.fromkeys(found))


def _is_gpu(device: Node) -> bool:
    """A reservation the daemon gives GPUs: the nvidia or amd driver, or capabilities all of one of theirs."""
    caps = device.get("capabilities")
    names = {str(c.value).lower() for c in caps.value if c.kind == SCALAR} \
        if caps is not None and caps.kind == SEQ else set()
    driver = device.get("driver")
    named = str(driver.value).lower() if driver is not None and driver.kind == SCALAR else ""
    return named in _GPU_DRIVERS or (not named and bool(names) and (names <= _NVIDIA_CAPS or names <= _AMD_CAPS))
