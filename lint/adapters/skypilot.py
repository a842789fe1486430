"""SkyPilot task YAML whose `run:` script starts an engine.

`resources.accelerators` (or its alias `gpus`) as `H100:8`, a list or a set/mapping of options
(`{A100:8, H100:8}`: SkyPilot picks any one of them, so every option is
checked as its own deployment, named `<task> [H100:8]`); `envs:` resolve
`$VAR`/`${VAR}` in the `run:` script (an env without a value must be given
at launch and stays unresolved); `service.replicas` (or
`replica_policy.min_replicas`) is the replica count. `resources.image_id: docker:<image>` is the container
the task runs in: its tag names the engine's release, unless `setup:` installs the engine anew.
"""
from __future__ import annotations

import os
from typing import List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.device_options import Option, option_workloads
from ctxlint.adapters.hardware import canonical_type
from ctxlint.adapters.kinds import skypilot_task
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, EnvVar, Workload, env_from_mapping
from ctxlint.adapters.workload_versions import installs_over
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "skypilot"
_OPTION = lazy_compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*(?::\s*(\d+(?:\.\d+)?))?\s*$")


matches = skypilot_task  # kinds.py: adapters.kinds.selected calls this adapter only for a file with such a task


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for doc in loaded.documents:
        if matches(doc.root):
            workloads.extend(_task(doc.root, spans, result))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _option(node: Node, text: str, count_node: Optional[Node], spans: ScalarSpans) -> Optional[Option]:
    m = _OPTION.match(text)
    if not m:
        return None
    found = canonical_type(m.group(1))
    accel = Val(found[0], spans.source(node, m.start(1), m.end(1), text), raw=m.group(1)) if found else None
    count = None
    if m.group(2) and float(m.group(2)).is_integer():
        count = Val(int(float(m.group(2))), spans.source(node, m.start(2), m.end(2), text), raw=m.group(2))
    elif count_node is not None and count_node.kind == SCALAR and isinstance(count_node.value, int) \
            and not isinstance(count_node.value, bool):
        count = Val(count_node.value, count_node.source(spans.file))
    elif not m.group(2):
        count = Val(1, accel.source if accel else node.source(spans.file), raw="1 (SkyPilot default)")
    label = m.group(1) + (f":{count.value}" if count is not None else "")
    return accel, count, label


def _options(resources: Optional[Node], spans: ScalarSpans) -> List[Option]:
    # `gpus:` is SkyPilot's alias of `accelerators:` (sky/resources.py RESOURCE_CONFIG_ALIASES)
    mapping = resources is not None and resources.kind == MAP
    named = (resources.get(k) for k in ("accelerators", "gpus")) if mapping else ()
    accel = next((n for n in named if n is not None), None)
    if accel is None:
        return [(None, None, "")]
    out: List[Option] = []
    if accel.kind == SCALAR and isinstance(accel.value, str):
        out.append(_option(accel, accel.value, None, spans))
    elif accel.kind == SEQ:
        out.extend(_option(n, n.value, None, spans) for n in accel.value if n.kind == SCALAR and isinstance(n.value, str))
    elif accel.kind == MAP:
        for key, value in accel.value.items():
            if isinstance(key, str):
                out.append(_option(accel.keys[key], key, value if value.value is not None else None, spans))
    out = [o for o in out if o is not None]
    return out or [(None, None, "")]


def _replicas(root: Node, file: str) -> Optional[Val[int]]:
    for path in (("service", "replicas"), ("service", "replica_policy", "min_replicas")):
        node = root.dig(*path)
        if node is not None and node.kind == SCALAR and isinstance(node.value, int) and not isinstance(node.value, bool):
            return Val(node.value, node.source(file))
    return None


def _docker_image(node: Optional[Node]) -> tuple:
    """`resources.image_id: docker:vllm/vllm-openai:v0.11.0`: the task runs in that container image (SkyPilot's
    docs, "Using Docker containers as runtime environments"), so its tag names the engine's release as a
    container's image does. The node and the image's name; (None, None) for a VM image (an AMI, a per-region
    mapping) or none."""
    if node is None or node.kind != SCALAR or not isinstance(node.value, str) or \
            not node.value.startswith("docker:") or not node.value[len("docker:"):].strip():
        return None, None
    return node, node.value[len("docker:"):].strip()


def _task(root: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file = spans.file
    name_node = root.get("name")
    if name_node is not None and name_node.kind == SCALAR and isinstance(name_node.value, str):
        base = Val(name_node.value, name_node.source(file))
    else:
        stem = os.path.splitext(os.path.basename(file))[0] or "task"
        base = Val(stem, root.source(file))
    env = env_from_mapping(root.get("envs"))
    options = _options(root.get("resources"), spans)
    nodes = root.get("num_nodes")
    num_nodes = nodes.value if nodes is not None and isinstance(nodes.value, int) and not isinstance(
        nodes.value, bool) and nodes.value > 0 else 1
    nodes_text = str(num_nodes)

    image, image_text = _docker_image(root.dig("resources", "image_id"))
    setup = [n for n in (root.get("setup"),) if n is not None]
    # `setup:` runs in that container before `run:`: an engine it installs anew replaces the image's release
    reinstalled = installs_over(image_text, setup, "setup:") if image_text and setup else None

    def container(option: Option) -> Container:
        accel, count, _ = option
        # SkyPilot sets these in every run: script (docs: "Environment variables available to tasks").
        injected = [EnvVar("SKYPILOT_NUM_NODES", nodes_text)] + (
            [EnvVar("SKYPILOT_NUM_GPUS_PER_NODE", str(count.value))] if count is not None else [])
        return Container(spans=spans, node=root.get("run"), name=base.value, script=root.get("run"),
                         env=injected + env, k8s_refs=False, shell_run=True,
                         install_scripts=setup, reinstalled=reinstalled,
                         accelerator_type=accel, accelerator_count=count,
                         group_pods=num_nodes, group_label="nodes (num_nodes)",
                         image=image, image_text=image_text)

    return option_workloads(options, container, base, root.source(file), NAME, _replicas(root, file), result)
