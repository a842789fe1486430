"""Akash Network SDL files (`deploy.yaml`): the services a `deployment` entry places, whose container
runs an engine.

SDL looks like Compose but runs like Kubernetes: the provider copies a service's `command`, `args` and
`env` into the pod's container (akash-network/provider@afc4dd7c:cluster/kube/builder/workload.go), so
`command` replaces the image's entrypoint, `args` follow it, `$(VAR)` refers to the env, and `env` is a
list of `NAME=value` strings split at the first `=`. Each `deployment.<service>.<placement>` entry runs
`count` instances of the service on the compute profile it names; a service no entry names never runs
(akash-network/chain-sdk@55f1c683:go/sdl/groupBuilder_v2.go). The profile's GPUs (`resources.gpu`) are
read by adapters/akash_gpus.py. What Akash would refuse in the parts read here is CTX002 at the value.
"""
from __future__ import annotations

from typing import Callable, List, Optional

from ctxlint.adapters.akash_gpus import gpu_options
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import tail_node
from ctxlint.adapters.kinds import akash_sdl
from ctxlint.adapters.pod_specs import command_fields
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.device_options import readings
from ctxlint.adapters.workload import Container, EnvVar, Workload
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.adapters.workload_inputs import expand_k8s, scalar_text, schema_reporter
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

from ..records import replace

NAME = "akash-sdl"
# Set by the provider in every container after the SDL's own env, unless the SDL sets them; their values
# are the lease's (akash-network/provider@afc4dd7c:cluster/kube/builder/builder.go addEnvVarsForDeployment).
_INJECTED = ("AKASH_GROUP_SEQUENCE", "AKASH_DEPLOYMENT_SEQUENCE", "AKASH_ORDER_SEQUENCE", "AKASH_OWNER",
             "AKASH_PROVIDER", "AKASH_CLUSTER_PUBLIC_HOSTNAME")
Report = Callable[[Node, str], None]


def matches(root: Node) -> bool:
    return akash_sdl(root)


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    report = schema_reporter(result.diagnostics, loaded.path)

    workloads: List[Workload] = []
    for doc in loaded.documents:
        if matches(doc.root):
            workloads.extend(_sdl(doc.root, spans, result, report))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _what(node: Node) -> str:
    return {MAP: "a mapping", SEQ: "a list"}.get(node.kind) or f"{scalar_text(node) or 'null'!r}"


def _sdl(root: Node, spans: ScalarSpans, result: AdaptResult, report: Report) -> List[Workload]:
    services, deployment = root.get("services"), root.get("deployment")
    if services.kind != MAP:
        report(services, f"must map service names to services, not {_what(services)}: Akash refuses this SDL")
        return []
    if deployment is None or deployment.kind != MAP:
        report(deployment or root.keys["services"], "Akash runs only the services a `deployment` mapping places "
               "(`deployment: {<service>: {<placement>: {profile: <compute profile>, count: 1}}}`), and refuses an "
               "SDL without one: nothing here runs")
        return []
    compute = root.dig("profiles", "compute")
    workloads: List[Workload] = []
    for name, placements in deployment.value.items():
        service = services.get(name)
        if service is None or service.kind != MAP:
            report(deployment.keys[name], f"places the service {name!r}, but `services` has no such service")
            continue
        if placements.kind != MAP or not placements.value:
            report(placements, "must map a placement name to `{profile: <compute profile>, count: N}`")
            continue
        run = command_fields(_given(service, "command", report), _given(service, "args", report))
        env = _env(_given(service, "env", report), spans)
        env += [EnvVar(n, None) for n in _INJECTED if n not in {var.name for var in env}]  # set, to the lease's
        container = Container(spans=spans, node=service, name=str(name), **run, env=env, image=service.get("image"))
        for index, (placement, entry) in enumerate(placements.value.items()):
            where = f"{placement}" if len(placements.value) > 1 else ""
            # what reading the service finds in its command is reported once, not once per placement
            workloads.extend(_placed(container, services.keys[name], entry, compute, where,
                                     result.diagnostics if index == 0 else [], report))
    return workloads


def _placed(container: Container, key: Node, entry: Node, compute: Optional[Node], where: str,
            diagnostics: List[Diagnostic], report: Report) -> List[Workload]:
    """The service as one `deployment.<service>.<placement>` entry runs it: one workload per GPU model."""
    spans = container.spans
    if entry.kind != MAP:
        report(entry, f"must be `{{profile: <compute profile>, count: N}}`, not {_what(entry)}")
        return []
    profile_node, count_node = entry.get("profile"), entry.get("count")
    profile = None
    if profile_node is None or profile_node.kind != SCALAR or not isinstance(profile_node.value, str):
        report(profile_node or entry, "needs `profile`, the name of a compute profile under `profiles.compute`")
    else:
        profile = compute.get(profile_node.value) if compute is not None and compute.kind == MAP else None
        if profile is None:
            report(profile_node, f"no compute profile {profile_node.value!r} under `profiles.compute`: Akash refuses "
                   "this SDL (the service's GPUs are not known)")
    count = None
    if count_node is not None and count_node.kind == SCALAR and isinstance(count_node.value, int) \
            and not isinstance(count_node.value, bool) and count_node.value >= 1:
        count = Val(count_node.value, count_node.source(spans.file))
    else:
        report(count_node or entry, "`count`, the instances to run, must be a whole number of 1 or more")
    workloads = []
    options = gpu_options(profile, spans.file, report)
    on_each = readings([replace(container, accelerator_count=units, accelerator_type=device)
                        for device, units, _ in options])
    for index, ((_, _, label), reading) in enumerate(zip(options, on_each)):
        if index == 0:
            diagnostics.extend(reading.diagnostics)  # once, not once per GPU model
        if not reading.roles:
            continue
        parts = [p for p in (where, label if len(options) > 1 else "") if p]
        display = f"{container.name} [{', '.join(parts)}]" if parts else container.name
        # at its `deployment` entry: the GPU models of one entry are one deployment's alternatives (ctxlint audit)
        workloads.append(Workload(name=Val(display, key.source(spans.file)), source=entry.source(spans.file),
                                  input_format=NAME, roles=reading.roles, replicas=count))
    return workloads


def _given(service: Node, key: str, report: Report) -> Optional[Node]:
    """`command`, `args` or `env`: a list of strings (or null: not given). Akash's parser refuses any other
    shape (chain-sdk go/sdl/v2.go v2Service: []string); a string is still read as a shell line, as a
    Kubernetes container's is, so its settings are checked too."""
    node = service.get(key)
    if node is None or (node.kind == SCALAR and node.value is None):
        return None
    if node.kind != SEQ:
        report(node, f"must be a list of strings, not {_what(node)}: Akash refuses this SDL"
               + ("; run a shell (`command: [sh, -c]`, `args: [\"...\"]`)" if key != "env" else ""))
    return node if node.kind != MAP else None


def _env(node: Optional[Node], spans: ScalarSpans) -> List[EnvVar]:
    """`NAME=value` strings, each value expanded as Kubernetes expands env values and placed after its `=`."""
    out: List[EnvVar] = []
    known = {}
    for item in node.value if node is not None and node.kind == SEQ else ():
        if item.kind != SCALAR or item.value is None:
            continue
        text = scalar_text(item)
        name, eq, value = text.partition("=")
        expanded = expand_k8s(value, known) if eq else ""  # `NAME` alone: set, empty
        known[name] = expanded
        out.append(EnvVar(name, expanded, tail_node(item, len(name) + 1, text, spans) if eq else item))
    return out

