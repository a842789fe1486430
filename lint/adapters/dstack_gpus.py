"""The GPUs of a dstack configuration, `resources.gpu`, in dstack's spec syntax.

dstack reads a string spec as `:`-separated tokens in any order (dstackai/dstack@511c318c8a7672fb2a925041bfc2d7
301a26272e:src/dstack/_internal/core/models/resources.py GPUSpec.parse): a vendor (`nvidia`, `amd`, `google`/`tpu`,
`intel`, `tenstorrent`/`tt`), a name list (a token that starts with a letter: `H100`, `H100,H200`), a memory
(a token with a letter in it: `24GB`, `40GB..80GB`) or a count (`8`, `1..2`, `2..`, a Range). A bare number is
a count. The mapping form has the same fields (`name` a string or a list, `count` and `memory` a Range).
A count left out is `1..` (DEFAULT_GPU_COUNT): at least one GPU, as many as the offer has, so not known; and
the GPUs dstack's runner reports to the commands (DSTACK_GPUS_NUM) are the instance's.

dstack picks any offer whose GPU matches one of the names with the memory asked for (gpuhunt's query filter,
dstackai/dstack@511c318c:src/dstack/_internal/core/backends/base/offers.py requirements_to_query_filter), so
each name is a device of its own, checked as its own deployment (`service [H100:8]`), as SkyPilot's any-of
accelerators are. gpuhunt lists some names with several memory sizes (dstackai/gpuhunt@35841515de3792fe6be73b
0422ac8901b6b929c8:src/gpuhunt/_internal/constraints.py KNOWN_NVIDIA_GPUS: A100 with 40 and 80 GB, V100 with
16 and 32 GB): such a name is each of its sizes the memory allows. A spec with no name (`24GB`, `nvidia:2`)
names no device: the GPUs of that memory differ in the memory the engine sees (an L4 and an RTX 4090 are
both 24 GB), so no device is stated, never one picked.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from ctxlint.adapters.device_options import Option
from ctxlint.adapters.hardware import canonical_type
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

Range = Tuple[Optional[float], Optional[float]]
_VENDORS = ("nvidia", "amd", "google", "tpu", "intel", "tenstorrent", "tt")  # GPUSpec._vendor_from_string
_SIZES = {"a100": (40, 80), "v100": (16, 32)}  # gpuhunt's names of several sizes among the data-center GPUs
_UNITS = (("tb", 1024.0), ("gb", 1.0), ("mb", 1 / 1024))  # resources.py Memory.parse: gigabytes


def gpu_options(gpu: Optional[Node], spans: ScalarSpans, report: Callable[[Node, str], None]) -> List[Option]:
    """The device options of `resources.gpu` (at least one; a device or a count may be None); a string spec
    dstack refuses is reported at the spec and names nothing."""
    if gpu is None or (gpu.kind == SCALAR and gpu.value is None):
        return [(None, None, "")]
    names: List[Tuple[str, Source]] = []
    count: Optional[Val[int]] = None
    memory: Range = (None, None)
    if gpu.kind == SCALAR and not isinstance(gpu.value, bool):
        text = str(gpu.value)
        refused = _refused(text)
        if refused:
            report(gpu, f"dstack refuses this GPU spec ({refused}); write it as "
                        "`[vendor:][name,...:][memory:][count]`, e.g. `H100:8` or `A100:80GB:2`")
            return [(None, None, "")]
        names, count, memory = _tokens(gpu, text, spans)
    elif gpu.kind == MAP:
        names = _names(gpu.get("name"), spans.file)
        count = _count_node(gpu.get("count"), spans.file)
        memory = _memory_node(gpu.get("memory"))
    options: List[Option] = []
    for name, where in names:
        for device, label in _devices(name, memory, where):
            if all(device.value != known[0].value for known in options if known[0] is not None):
                options.append((device, count, label + (f":{count.value}" if count is not None else "")))
    return options or [(None, count, "")]


def _tokens(node: Node, text: str, spans: ScalarSpans):
    names: List[Tuple[str, Source]] = []
    count, memory = None, (None, None)
    at = 0
    for token in text.split(":"):
        start, at = at, at + len(token) + 1
        word = token.strip()
        if not word or word.lower() in _VENDORS:
            continue
        lead = start + len(token) - len(token.lstrip())
        if word[0].isalpha():
            offset = lead
            for name in word.split(","):
                if name.strip():
                    names.append((name.strip(), spans.source(node, offset, offset + len(name), text)))
                offset += len(name) + 1
        elif any(c.isalpha() for c in word):
            memory = _range(word, _memory)
        else:
            low, high = _range(word, _int)
            if low is not None and low == high:
                count = Val(int(low), spans.source(node, lead, lead + len(word), text), raw=word)
    return names, count, memory


def _refused(text: str) -> str:
    """Why GPUSpec.parse refuses a string spec: an empty token, or two of one kind."""
    seen = set()
    for token in text.replace(" ", "").split(":"):
        if not token:
            return "an empty token"
        kind = "vendor" if token.lower() in _VENDORS else "name" if token[0].isalpha() else \
            "memory" if any(c.isalpha() for c in token) else "count"
        if kind in seen:
            return f"two {'memories' if kind == 'memory' else kind + 's'}"
        seen.add(kind)
    return ""


def _names(node: Optional[Node], file: str) -> List[Tuple[str, Source]]:
    items = node.value if node is not None and node.kind == SEQ else [node] if node is not None else []
    return [(n.value.strip(), n.source(file)) for n in items
            if n.kind == SCALAR and isinstance(n.value, str) and n.value.strip()]


def _count_node(node: Optional[Node], file: str) -> Optional[Val[int]]:
    if node is None or isinstance(node.value, bool):
        return None
    if node.kind == MAP:  # {min: 2, max: 2}
        low, high = (_int(str(node.get(k).value)) if node.get(k) is not None else None for k in ("min", "max"))
    elif node.kind == SCALAR:
        low, high = _range(str(node.value), _int)
    else:
        return None
    return Val(int(low), node.source(file), raw=str(node.value)) if low is not None and low == high else None


def _memory_node(node: Optional[Node]) -> Range:
    if node is None or node.kind != SCALAR or isinstance(node.value, bool) or node.value is None:
        return None, None
    return _range(str(node.value), _memory)


def _range(text: str, parse) -> Range:
    """Range._parse: `a..b`, `a..`, `..b` or one value (min = max); None where a bound is absent or bad."""
    text = text.replace(" ", "")
    if ".." in text:
        low, _, high = text.partition("..")
        return (parse(low) if low else None), (parse(high) if high else None)
    value = parse(text)
    return value, value


def _int(text: str) -> Optional[float]:
    return float(int(text)) if text.isdigit() else None


def _memory(text: str) -> Optional[float]:
    low = text.lower()
    for unit, scale in _UNITS:
        if low.endswith(unit):
            low, factor = low[:-len(unit)], scale
            break
    else:
        factor = 1.0
    try:
        value = float(low) * factor
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def _devices(name: str, memory: Range, where: Source) -> List[Tuple[Val[str], str]]:
    """The catalog devices a dstack GPU name stands for with this memory, each with its label."""
    sizes = _SIZES.get(name.lower())
    if sizes is None:
        found = canonical_type(name)
        return [(Val(found[0], where, raw=name), name)] if found else []
    low, high = memory
    fitting = [s for s in sizes if (low is None or s >= low) and (high is None or s <= high)] or list(sizes)
    out = []
    for size in fitting:
        found = canonical_type(f"{name}-{size}GB")
        if found:
            out.append((Val(found[0], where, raw=name), f"{name}:{size}GB"))
    return out
