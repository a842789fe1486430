"""dstack run configurations (`.dstack.yml`, `*.dstack.yml`) whose `commands` start an engine.

A `type: service` or `type: task` (a `dev-environment` is someone's workstation, not a deployment) runs its
`commands` as ONE shell line: dstack strips each, puts one that ends in `&` in braces and joins them with
` && ` (dstackai/dstack@511c318c8a7672fb2a925041bfc2d7301a26272e:src/dstack/_internal/server/services/jobs/
configurators/base.py _join_shell_commands), run by `sh -i -c` in the `image` (bash without one). That
line is read as a SkyPilot `run:` script is, every value at its place in its own item. `env` is a list of
`NAME=value` or bare `NAME` (the value of the shell `dstack apply` runs in: unknown here), or a mapping
(dstackai/dstack@511c318c:src/dstack/_internal/core/models/envs.py); `${{ ... }}` (a secret) is unknown.
The runner sets DSTACK_NODES_NUM, DSTACK_GPUS_PER_NODE and DSTACK_GPUS_NUM from the instance it got, the
user's `env` over them (dstackai/dstack@511c318c:runner/internal/runner/executor/executor.go execJob,
env.go NewEnvMap/Update): known when `resources.gpu` fixes the count (adapters/dstack_gpus.py), so
`--tensor-parallel-size $DSTACK_GPUS_NUM` is that count. A service's `groups` (or the legacy list form of
`replicas`) are deployments of their own (`service [group]`), each with its commands, image and
resources; a task's node `groups` too, and its `nodes` are one engine's nodes.
"""
from __future__ import annotations

import os
from typing import List, Optional, Sequence, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import tail_node
from ctxlint.adapters.device_options import Option, option_workloads
from ctxlint.adapters.dstack_gpus import gpu_options
from ctxlint.adapters.kinds import dstack_config
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, EnvVar, Workload
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.adapters.workload_inputs import scalar_text, schema_reporter
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, ForeignNode, Node

NAME = "dstack"
_FROM_SHELL = "is taken from the environment `dstack apply` runs in"
_SECRET = "is a dstack secret (`${{ secrets... }}`), not known here"
_OFFER = "dstack sets it to the GPUs of the instance it gets, and `resources.gpu` fixes no count"
_RANK = "dstack sets it to each node's rank"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for doc in loaded.documents:
        if dstack_config(doc.root):
            workloads.extend(_configuration(doc.root, spans, result))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _configuration(root: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file = spans.file
    name_node = root.get("name")
    if name_node is not None and name_node.kind == SCALAR and isinstance(name_node.value, str):
        base = Val(name_node.value, name_node.source(file))
    else:  # dstack names the run itself; the file names it here (`serve.dstack.yml` -> serve)
        stem = os.path.basename(file).split(".dstack.")[0].split(".")[0] or "dstack"
        base = Val(stem, root.source(file))
    env = _env(root.get("env"), spans)
    groups = root.get("groups")
    if groups is None and root.get("replicas") is not None and root.get("replicas").kind == SEQ:
        groups = root.get("replicas")  # the legacy form of service groups (configurations.py)
    if groups is not None and groups.kind == SEQ:
        out = []
        for index, group in enumerate(groups.value):
            if group.kind == MAP:
                label = scalar_text(group.get("name")) if group.get("name") is not None else str(index)
                out.extend(_workloads(root, group, Val(f"{base.value} [{label}]", base.source), env, spans, result))
        return out
    return _workloads(root, root, base, env, spans, result)


def _workloads(root: Node, part: Node, base: Val[str], env: List[EnvVar], spans: ScalarSpans,
               result: AdaptResult) -> List[Workload]:
    """The deployments of one set of commands (the configuration's, or a group's) on each device option."""
    file = spans.file
    commands = part.get("commands")
    if commands is None or commands.kind != SEQ:
        return []
    items = [n for n in commands.value if n.kind == SCALAR and isinstance(n.value, str)]
    if not items:
        return []
    script = _joined(commands, items, spans)
    nodes = _positive(part.get("nodes")) or 1
    resources = part.get("resources")
    gpu = resources.get("gpu") if resources is not None and resources.kind == MAP else None
    options = gpu_options(gpu, spans, schema_reporter(result.diagnostics, file))
    image = part.get("image") if part.get("image") is not None else root.get("image")

    def container(option: Option) -> Container:
        accel, count, _ = option
        return Container(spans=spans, node=commands, name=base.value, script=script,
                         env=_injected(nodes, count) + env, image=image, k8s_refs=False, shell_run=True,
                         accelerator_type=accel, accelerator_count=count, group_pods=nodes,
                         group_label="nodes (nodes)")

    return option_workloads(options, container, base, part.source(file), NAME,
                            _replicas(part.get("replicas"), file), result)


def _injected(nodes: int, count: Optional[Val[int]]) -> List[EnvVar]:
    """What dstack's runner sets for every job (executor.go execJob): the GPU counts only when fixed."""
    per_node = str(count.value) if count is not None else None
    total = str(count.value * nodes) if count is not None else None
    rank = ("0", None) if nodes == 1 else (None, _RANK)
    return [EnvVar("DSTACK_NODES_NUM", str(nodes)), EnvVar("DSTACK_NODE_RANK", rank[0], None, rank[1]),
            EnvVar("DSTACK_GPUS_PER_NODE", per_node, None, None if count is not None else _OFFER),
            EnvVar("DSTACK_GPUS_NUM", total, None, None if count is not None else _OFFER)]


def _env(node: Optional[Node], spans: ScalarSpans) -> List[EnvVar]:
    out: List[EnvVar] = []
    if node is not None and node.kind == MAP:
        for key, value in node.value.items():
            if isinstance(key, str) and value.kind == SCALAR:
                out.append(_var(key, None if value.value is None else scalar_text(value), value))
    for item in node.value if node is not None and node.kind == SEQ else ():
        if item.kind == SCALAR and isinstance(item.value, str):
            name, eq, value = item.value.partition("=")
            if not eq:  # `NAME`: the value of the user's own environment
                out.append(EnvVar(name.strip(), None, item, _FROM_SHELL))
            else:
                out.append(_var(name, value, tail_node(item, len(name) + 1, item.value, spans)))
    return out


def _var(name: str, value: Optional[str], node: Node) -> EnvVar:
    if value is not None and "${{" in value:
        return EnvVar(name, None, node, _SECRET)
    return EnvVar(name, value, node)


def _positive(node: Optional[Node]) -> Optional[int]:
    value = node.value if node is not None and node.kind == SCALAR else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _replicas(node: Optional[Node], file: str) -> Optional[Val[int]]:
    """`replicas: 2` (or `2..2`); a range that scales is no one count."""
    if node is None or node.kind != SCALAR or isinstance(node.value, bool):
        return None
    text = str(node.value).replace(" ", "")
    low, _, high = text.partition("..") if ".." in text else (text, "", text)
    if low.isdigit() and low == high:
        return Val(int(low), node.source(file), raw=text)
    return None


class _Joined:
    """The commands as the one line dstack runs (`_join_shell_commands`), its spans mapped back into the
    item each lies in: a ScalarSpans for the joined line's node (nodes.ForeignNode hands its spans here)."""

    def __init__(self, spans: ScalarSpans, items: Sequence[Node]) -> None:
        self.spans, self.file = spans, spans.file
        self.parts: List[Tuple[int, int, int, Node, str]] = []  # (start, end) in the line, lead, item, its text
        text = ""
        for item in items:
            raw = item.value
            stripped = raw.strip()
            lead = len(raw) - len(raw.lstrip())
            braces = stripped.endswith("&")  # a background command: `{ cmd & }`
            text += (" && " if text else "") + ("{ " if braces else "")
            self.parts.append((len(text), len(text) + len(stripped), lead, item, raw))
            text += stripped + (" }" if braces else "")
        self.text = text

    def source(self, node: Node, start: int, end: int, value: Optional[str] = None,
               path: Optional[str] = None) -> Source:
        for begin, stop, lead, item, raw in self.parts:
            if begin <= start < stop:
                return self.spans.source(item, start - begin + lead, min(end, stop) - begin + lead, raw, path)
        return node.source(self.file)


def _joined(commands: Node, items: Sequence[Node], spans: ScalarSpans) -> Node:
    joined = _Joined(spans, items)
    node = ForeignNode.__new__(ForeignNode)
    for slot in Node.__slots__:
        setattr(node, slot, getattr(commands, slot))
    node.kind, node.value, node._keys, node.style, node.spans = SCALAR, joined.text, None, None, joined
    return node
