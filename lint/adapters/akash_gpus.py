"""The GPUs of an Akash SDL compute profile, `profiles.compute.<name>.resources.gpu`.

`units` is the GPUs of one instance (an unsigned integer, also written as a string:
akash-network/chain-sdk@55f1c683:go/sdl/units.go gpuQuantity). `attributes.vendor.nvidia` lists the
models a provider may bid with, each `{model, ram, interface}` (chain-sdk go/sdl/gpu.go), and a
provider bids with any one of them: a GPU qualifies when its model is one of them, with the memory and
interface stated (akash-network/provider@afc4dd7c:cluster/types/v1beta3/clients/inventory/inventory.go
tryAdjustGPU). So each model is checked as its own deployment, `service [h100]`, as SkyPilot's any-of
accelerators are; `nvidia:` with no models is any NVIDIA GPU, a device ctxlint cannot know.

Akash names models in lower case without separators (`h100`, `a100`, `rtx4090`, `rtxa6000`:
akash-network/provider-configs@2d04f4fe:devices/pcie/gpus.json), which the accelerator catalog's names
match; `ram` (`80Gi`) and `interface` (`pcie`, `sxm`) pick the catalog device where a family has several.
A model without `ram` is any size Akash lists for it: `a100` with 40Gi, 64Gi and 80Gi and `v100` with 16Gi
and 32Gi (akash-network/provider-configs@03b3eefb1ed7ce6e6d4c88ffcce3476af54f740f:devices/pcie/gpus.json), so
each is the catalog family's any-of device (accelerators.family_word), a memory band over the sizes (40 to
80 GB holds the 64 GB card) whose verdicts stand only where every size agrees, never the catalog's bare `a100`
(the 40 GB card) taken as the one a provider bids with. Akash lists `p100` at 16Gi only: the 16 GB card.
A model the catalog does not know is kept as written, so the capacity stage names what it cannot size.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from ctxlint.adapters.device_options import Option
from ctxlint.adapters.workload_inputs import scalar_text
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.physics.accelerators import family_word, lookup_accelerator

_UNITS = lazy_compile(r"^[0-9]+$")  # strconv.ParseUint(node.Value, 10, 64)
# chain-sdk go/sdl/units.go memoryQuantity: a number with one of these suffixes, or of bytes
_RAM = lazy_compile(r"^([0-9]{1,30}(?:\.[0-9]{1,30})?)(Ki|Mi|Gi|Ti|Pi|Ei)?$")  # bounded: a float, never inf
_SCALE = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}
_NOMINAL_GB = lazy_compile(r"^\s*([0-9]+)\s*GB\b")
_INTERFACES = ("pcie", "sxm")  # chain-sdk go/sdl/gpu.go gpuInterface
_SIZES = ("a100", "v100")  # Akash's models of several memory sizes (gpus.json above)
_SHAPE = "`{units: N, attributes: {vendor: {nvidia: [{model: h100, ram: 80Gi}]}}}`"


def gpu_options(profile: Optional[Node], file: str, report: Callable[[Node, str], None]) -> List[Option]:
    """The GPU options of a compute profile (None: the profile is not known): at least one, maybe without
    a device or a count."""
    gpu = profile.dig("resources", "gpu") if profile is not None and profile.kind == MAP else None
    if gpu is None or (gpu.kind == SCALAR and gpu.value is None):
        return [(None, None, "")]
    if gpu.kind != MAP:
        report(gpu, f"must be {_SHAPE}, not {scalar_text(gpu) or 'a list'!r}: Akash refuses this SDL")
        return [(None, None, "")]
    units = _units(gpu.get("units"), file, report)
    models = gpu.dig("attributes", "vendor", "nvidia")
    if models is not None and models.kind != SEQ and not (models.kind == SCALAR and models.value is None):
        report(models, f"must list the GPU models a provider may bid with, as in {_SHAPE}")
    options: List[Option] = []
    for item in models.value if models is not None and models.kind == SEQ else ():
        found = _model(item, file, report)
        if found is not None and all(found[0].value != known[0].value for known in options if known[0]):
            options.append((found[0], units, found[1]))
    return options or [(None, units, "")]


def _units(node: Optional[Node], file: str, report: Callable[[Node, str], None]) -> Optional[Val[int]]:
    if node is None:
        return None
    text = scalar_text(node) if node.kind == SCALAR and not isinstance(node.value, bool) else ""
    if _UNITS.match(text):
        return Val(int(text), node.source(file))
    report(node, f"`units` must be a whole number of GPUs per instance, not {text or 'this'!r}: Akash refuses this SDL")
    return None


def _model(item: Node, file: str, report: Callable[[Node, str], None]) -> Optional[Tuple[Val[str], str]]:
    """(device at the `model` value, the model as written with its ram and interface) of one list item."""
    model = item.get("model") if item.kind == MAP else None
    written = model.value.strip() if model is not None and isinstance(model.value, str) else ""
    if not written:
        report(model or item, "each GPU option names its `model` (`- model: h100`, with `ram: 80Gi` where a model "
               "comes in several sizes)")
        return None
    ram_node, iface_node = item.get("ram"), item.get("interface")
    gib = _gib(ram_node) if ram_node is not None else None
    if ram_node is not None and gib is None:
        report(ram_node, f"`ram` must be a memory size such as 80Gi, not {scalar_text(ram_node)!r}: Akash refuses "
               "this SDL")
    iface = scalar_text(iface_node) if iface_node is not None else None
    if iface is not None and iface not in _INTERFACES:
        report(iface_node, f"`interface` must be pcie or sxm, not {iface!r}: Akash refuses this SDL")
        iface = None
    label = " ".join(part for part in (written, f"{gib}Gi" if gib else "", iface or "") if part)
    return Val(_device(written.lower(), gib, iface), model.source(file), raw=label), label


def _gib(node: Node) -> Optional[int]:
    """Whole GiB, as Akash matches a GPU's memory (memoryQuantity.StringWithSuffix("Gi") floors)."""
    m = _RAM.match(scalar_text(node)) if node.kind == SCALAR else None
    if m is None:
        return None
    return int(float(m.group(1)) * _SCALE[m.group(2)]) >> 30 or None  # under 1 GiB names no GPU


def _device(model: str, gib: Optional[int], iface: Optional[str]) -> str:
    """The catalog device an Akash model names (with its memory and interface), else the model as written."""
    family = family_word(model) if gib is None and model in _SIZES else None
    if family is not None:  # any size: the interface does not say one (A100 comes as PCIe and SXM in both)
        return family.name
    names = [f"{model}-{iface}-{gib}gb"] if iface and gib else []
    names += ([f"{model}-{gib}gb"] if gib else []) + ([f"{model}-{iface}"] if iface else []) + [model]
    for name in names:
        acc = lookup_accelerator(name)
        nominal = _NOMINAL_GB.match(acc.nominal or "") if acc is not None else None
        if acc is not None and (gib is None or nominal is None or int(nominal.group(1)) == gib):
            return acc.name
    return f"{model} {gib}Gi" if gib else model
