"""The GPUs of a Baseten Truss config, `resources.accelerator` (and `resources.instance_type`).

Truss reads `accelerator` as `TYPE` or `TYPE:N` (basetenlabs/truss@0bee989b9ec85ed9d29374ab4d7e2883e49de87e:
truss/base/truss_config.py AcceleratorSpec._from_string_spec): TYPE must be one of the `Accelerator` enum's
values, case and all (`h100` is refused), and N a positive whole number (`H100:0`, `H100:x` are refused); no
`:N` is one GPU, and a third `:` part is ignored there (count 1). The mapping form `{accelerator: H100,
count: 2}` is accepted too, and null (or no accelerator) is no GPU: `use_gpu` is computed from it, never
read. `instance_type` (a Baseten SKU, `L4:4x16`) makes Truss ignore `accelerator`; its GPU count is
Baseten's, not written in the file, so only a leading TYPE is read from it and the count is left unknown.

Baseten's names map onto the accelerator catalog with two exceptions the plain names would get wrong:
`A100` is the 80 GB part (the enum has `A100_40GB` beside it), and `H100_40GB` is half an H100 by MIG
(3g.40gb: two per card, 3 of 7 compute slices and 4 of 8 memory slices each; Baseten, "Using fractional
H100 GPUs for efficient model serving", baseten.co/blog/using-fractional-h100-gpus-for-efficient-model-serving).
`V100` names no size, and NVIDIA sells it in 16 and 32 GB: the catalog family's any-of device, a memory band
over both (accelerators.family_word). A name the catalog lacks (`B10`) is kept as written, so the capacity stage
says what it cannot size.
"""
from __future__ import annotations

from typing import Callable, Optional, Tuple

from ctxlint.adapters.workload_inputs import scalar_text
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, Node
from ctxlint.physics.accelerators import family_word, lookup_accelerator

# truss_config.Accelerator values -> the catalog name to look up (None: the catalog has no such device)
ACCELERATORS = {"B10": None, "T4": "T4", "L4": "L4", "A10G": "A10G", "V100": "V100", "A100": "A100-80GB",
                "A100_40GB": "A100-40GB", "H100": "H100", "H200": "H200", "H100_40GB": "H100-MIG-3g.40gb",
                "B200": "B200", "L40S": "L40S", "RTX_PRO_6000": "RTX-PRO-6000", "B300": "B300", "GB300": "GB300"}
REFUSED = ": Truss refuses this config"
Report = Callable[[Node, str], None]
Gpus = Tuple[Optional[Val[str]], Optional[Val[int]], Optional[Tuple[str, Node]]]  # device, count, unknown


def device_name(written: str) -> str:
    """The catalog device a Truss accelerator name stands for, else the name as written."""
    catalog = ACCELERATORS.get(written)
    found = (family_word(catalog) or lookup_accelerator(catalog)) if catalog else None
    return found.name if found is not None else written


def gpus(resources: Optional[Node], spans, report: Report) -> Gpus:
    """(device, GPUs per replica, what is not known and where) of `resources`."""
    if resources is None or resources.kind == SCALAR and resources.value is None:
        return None, None, None
    if resources.kind != MAP:
        report(resources, f"must be a mapping (`resources: {{accelerator: H100:2}}`){REFUSED}")
        return None, None, None
    sku = resources.get("instance_type")
    if sku is not None and not (sku.kind == SCALAR and sku.value is None):
        return _instance_type(sku, spans)
    node = resources.get("accelerator")
    if node is None or node.kind == SCALAR and node.value is None:
        return None, None, None
    if node.kind == MAP:
        return _mapping(node, spans.file, report)
    if node.kind != SCALAR or not isinstance(node.value, str):
        report(node, f"must be a GPU type such as H100 or H100:2, not {scalar_text(node) or 'a list'!r}{REFUSED}")
        return None, None, None
    return _spec(node, node.value, spans, report)


def _spec(node: Node, text: str, spans, report: Report) -> Gpus:
    lead = len(text) - len(text.lstrip())
    parts = text.strip().split(":")
    name = parts[0]
    if name not in ACCELERATORS:
        known = ", ".join(ACCELERATORS)
        what = "an empty GPU type" if not name else f"no GPU type Truss knows ({known}; case matters)"
        report(node, f"{name!r} is {what}{REFUSED}")
        return None, None, None
    device = Val(device_name(name), spans.source(node, lead, lead + len(name), text), raw=name)
    if len(parts) != 2:  # `H100` (or `H100:2:1`, whose count Truss never reads): one GPU
        return device, Val(1, device.source, raw="1 (Truss default)"), None
    count = parts[1]
    # str.isdigit, as Truss tests it (no sign, no spaces); `²` passes isdigit and fails int(): Truss refuses it too
    if not (count.isdigit() and count.isascii()) or int(count) <= 0:
        report(node, f"the GPU count {count!r} must be a positive whole number{REFUSED}")
        return device, None, None
    start = lead + len(name) + 1
    return device, Val(int(count), spans.source(node, start, start + len(count), text), raw=count), None


def _mapping(node: Node, file: str, report: Report) -> Gpus:
    """`{accelerator: H100, count: 2}` (AcceleratorSpec's own fields; count defaults to 1, 0 is no GPU)."""
    kind, count = node.get("accelerator"), node.get("count")
    name = kind.value if kind is not None and kind.kind == SCALAR else None
    if name is None:
        return None, None, None
    if not isinstance(name, str) or name not in ACCELERATORS:
        report(kind, f"{scalar_text(kind)!r} is no GPU type Truss knows ({', '.join(ACCELERATORS)}){REFUSED}")
        return None, None, None
    device = Val(device_name(name), kind.source(file), raw=name)
    if count is None:
        return device, Val(1, device.source, raw="1 (Truss default)"), None
    value = count.value if count.kind == SCALAR else None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        report(count, f"`count` must be a whole number of GPUs, 0 or more{REFUSED}")
        return device, None, None
    return (device, Val(value, count.source(file)), None) if value else (None, None, None)


def _instance_type(sku: Node, spans) -> Gpus:
    """A Baseten SKU: a leading GPU type names the device; the count is Baseten's instance's."""
    text = scalar_text(sku)
    name = text.strip().split(":")[0]
    lead = text.find(name) if name else -1
    device = Val(device_name(name), spans.source(sku, lead, lead + len(name), text), raw=name) \
        if name in ACCELERATORS else None
    why = (f"the GPUs of the instance type {text!r} (a Baseten SKU, which makes Truss ignore `accelerator`: "
           "its GPU count is not written in the file)")
    return device, None, (why, sku)
