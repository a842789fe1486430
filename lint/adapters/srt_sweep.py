"""srt-slurm `sweep:` recipes: one job per combination of the sweep's lists, as srtctl submits them.

srtctl (NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194:src/srtctl/core/sweep.py generate_sweep_configs)
takes the product of the sweep's lists in their written order, deletes `sweep`, replaces each `{name}` in every
string of the recipe by `str(value)` (expand_template: a Python str, so `tensor-parallel-size: "{tp}"` becomes the
string "8", an int the schema and the engine read as 8, and a YAML `true` becomes "True") and names the job
`<name>_<k><v>_...`. Each job is a deployment of its own, so a swept parallel size is known in each one.

Only the parameters the serving reads are expanded: one whose `{name}` appears outside `sweep`, `benchmark` and
`name` (a concurrency swept for the benchmark starts the same servers each time, so its jobs are one deployment
here, named by the parameters that differ). Past MOST_JOBS such combinations (a 4 x 4 x 4 x 4 grid of tp, pp, dp
and ep), or where a list is not a list of plain values, the recipe is read once as before: each swept setting is
unknown and CTX008 lists it with the sweep's values (srt_recipe.py).
"""
from __future__ import annotations

import itertools
import re
from typing import Dict, List, Optional

from ctxlint.adapters.crd_common import clone
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

MOST_JOBS = 16  # a tp x pp grid of 4 x 4; beyond it the deployments would outnumber what a reader can check
_NOT_SERVING = ("sweep", "benchmark", "name")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")  # core/sweep.py expand_template's `{name}`


def sweep_jobs(root: Node) -> Optional[List[Node]]:
    """The recipe of each job whose serving differs, in srtctl's order; None to read the recipe once."""
    sweep = root.get("sweep") if root.kind == MAP else None
    if sweep is None or sweep.kind != MAP:
        return None
    used = _placeholders(root, {str(k) for k in sweep.value})
    names = [k for k in sweep.value if str(k) in used]  # the sweep's own order: itertools.product's
    lists = [sweep.value[k] for k in names]
    written = root.get("name")  # srtctl names each job f"{sweep_config['name']}_{param_str}"
    if written is None or written.kind != SCALAR or not names or any(v.kind != SEQ or not v.value or any(i.kind != SCALAR for i in v.value) for v in lists):
        return None
    count = 1
    for values in lists:
        count *= len(values.value)
    if count > MOST_JOBS:
        return None
    jobs = []
    for combo in itertools.product(*(v.value for v in lists)):
        params = {str(k): str(item.value) for k, item in zip(names, combo)}
        value = {k: _expanded(v, params) for k, v in root.value.items() if k != "sweep"}
        keys = {k: n for k, n in root.keys.items() if k != "sweep"}
        value["name"] = clone(written, value=f"{written.value}_" + "_".join(f"{k}{v}" for k, v in params.items()))
        jobs.append(clone(root, value=value, keys=keys))
    return jobs


def _placeholders(root: Node, names: set) -> set:
    """The sweep parameters a `{name}` of the serving settings holds."""
    found: set = set()
    stack = [v for k, v in root.value.items() if k not in _NOT_SERVING]
    while stack:
        node = stack.pop()
        if node.kind == MAP:
            stack.extend(node.value.values())
        elif node.kind == SEQ:
            stack.extend(node.value)
        elif isinstance(node.value, str) and "{" in node.value:
            found.update(m.group(1) for m in _PLACEHOLDER.finditer(node.value) if m.group(1) in names)
    return found


def _expanded(node: Node, params: Dict[str, str]) -> Node:
    """expand_template over a node: each string with its `{name}`s replaced, where it is written."""
    if node.kind == MAP:
        return clone(node, value={k: _expanded(v, params) for k, v in node.value.items()})
    if node.kind == SEQ:
        return clone(node, value=[_expanded(v, params) for v in node.value])
    if not isinstance(node.value, str) or "{" not in node.value:
        return node
    text = node.value
    for key, value in params.items():
        text = text.replace("{" + key + "}", value)
    return node if text == node.value else clone(node, value=text)
