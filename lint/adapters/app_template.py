"""Values of bjw-s's `app-template` Helm chart: each controller's containers, read as a Kubernetes pod.

The chart (bjw-s-labs/helm-charts@dfaf83d12a36d53bf9cf422b99ba5d38d8e8ec24, charts/other/app-template, a thin
wrapper of charts/library/common) renders `controllers.<id>` as a Deployment (or the `type` it names) whose
pod runs `containers.<name>`. What it does with the values, from charts/library/common:

- schemas/controllers.json: a controller has `enabled` (default true), `type`, `replicas` (default 1),
  `pod` (pod options), `defaultContainerOptions` (+ `defaultContainerOptionsStrategy`, default `overwrite`)
  and `containers`, a mapping of name -> container (containers.json: `enabled`, `image`, `command`,
  `args`, `env`, `envFrom`, `resources`, ...).
- templates/lib/container/_valuesToObject.tpl: `overwrite` takes each default container option the
  container leaves empty; `merge` merges the container's values over the defaults.
- fields/_image.tpl: the image is `repository:tag`, rendered only when both are set.
- fields/_command.tpl, fields/_args.tpl: a string is the list's one item (not a shell line).
- fields/_env.tpl: `env` is a list of {name, value|valueFrom} or a mapping of name -> value,
  name -> {value}, name -> {valueFrom} or name -> {secretKeyRef|configMapKeyRef|...} (the reference as
  valueFrom); numbers and booleans are rendered as strings (schemas/envVars.json).
- templates/lib/pod/_getOption.tpl: a pod option (`nodeSelector`, `affinity`, ...) is the controller's
  `pod.<option>` when set, else `defaultPodOptions.<option>`; with `defaultPodOptionsStrategy: merge`
  the two mappings are merged, the controller's winning.

Each enabled controller is handed to the Kubernetes reader as the pod spec the chart renders
(pod_specs.pod_roles): a view over the values whose every node keeps its place in the file, so only
containers that start an engine become roles, with their GPUs, device and env read as a Deployment's.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, merge_patch, scalar
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Workload, limits_from_annotations
from ctxlint.adapters.workload_inputs import scalar_text
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

_POD_OPTIONS = ("nodeSelector", "affinity", "tolerations", "runtimeClassName", "volumes")
_CONTAINER_OPTIONS = ("args", "command", "env", "envFrom", "image", "resources", "securityContext")
_ENV_REFS = ("fieldRef", "resourceFieldRef", "secretKeyRef", "configMapKeyRef")  # name -> {secretKeyRef: ...}


def read(root: Node, spans: ScalarSpans, result: AdaptResult, input_format: str) -> List[Workload]:
    """One workload per enabled controller whose containers start an engine."""
    file, out = spans.file, []
    controllers = root.get("controllers")
    defaults = root.get("defaultPodOptions")
    merge = scalar(root.get("defaultPodOptionsStrategy")) == "merge"
    for key, controller in controllers.value.items():
        if controller.kind != MAP or scalar(controller.get("enabled")) is False:
            continue
        pod = _pod_view(controller, defaults, merge)
        roles = pod_roles(pod, spans, result, {}, injected=[])
        if not roles:
            continue
        key_node = controllers.keys[key]
        name = Val(str(key), key_node.source(file))
        annotations = controller.get("annotations")
        if not _has_limits(annotations):
            annotations = _option(controller, defaults, "annotations", merge)
        advertised, gateway, measured = limits_from_annotations(annotations, file, result.diagnostics, str(key))
        replicas = controller.get("replicas")
        if scalar(controller.get("type")) in ("daemonset", "cronjob", "job"):
            replicas = None  # one pod per node, or per run: no `replicas` the chart renders
        out.append(Workload(name=name, source=controller.source(file), input_format=input_format, roles=roles,
                            replicas=int_val(replicas, file), advertised=advertised, gateway=gateway,
                            measured=measured))
    return out


def _has_limits(annotations: Optional[Node]) -> bool:
    return annotations is not None and annotations.kind == MAP and \
        any(str(k).startswith("ctxlint.io/") for k in annotations.value)


def _option(controller: Node, defaults: Optional[Node], option: str, merge: bool) -> Optional[Node]:
    """A pod option as _getOption.tpl picks it: the controller's `pod.<option>`, else the default's."""
    pod = controller.get("pod")
    own = pod.get(option) if pod is not None and pod.kind == MAP else None
    default = defaults.get(option) if defaults is not None and defaults.kind == MAP else None
    if merge and own is not None and default is not None and own.kind == MAP and default.kind == MAP:
        return merge_patch(default, own)
    return own if _set(own) else default


def _set(node: Optional[Node]) -> bool:
    """Not Helm's `empty`: a value the chart takes (an empty mapping, list or string, or null, is not)."""
    if node is None:
        return False
    if node.kind == SCALAR:
        return node.value is not None and node.value != "" or isinstance(node.value, bool)
    return bool(node.value)


def _pod_view(controller: Node, defaults: Optional[Node], merge: bool) -> Node:
    """The pod spec the chart renders for a controller: its options and its enabled containers, as a list."""
    value: Dict[str, Node] = {}
    keys: Dict[str, Node] = {}
    for option in _POD_OPTIONS:
        found = _option(controller, defaults, option, merge)
        if found is not None:
            value[option] = keys[option] = found
    containers = controller.get("containers")
    items = [_container_view(containers.keys[name], c, controller)
             for name, c in containers.value.items()
             if c.kind == MAP and scalar(c.get("enabled")) is not False]
    value["containers"] = clone(containers, kind=SEQ, value=items, keys={})
    keys["containers"] = controller.keys.get("containers", containers)
    return clone(controller, value=value, keys=keys)


def _container_view(name: Node, container: Node, controller: Node) -> Node:
    """A container of the chart's values as Kubernetes gets it (see the module's notes)."""
    options = controller.get("defaultContainerOptions")
    if options is not None and options.kind == MAP:
        if scalar(controller.get("defaultContainerOptionsStrategy")) == "merge":
            container = merge_patch(options, container)
        else:
            own = dict(container.value)
            for key in _CONTAINER_OPTIONS:
                if not _set(own.get(key)) and options.get(key) is not None:
                    own[key] = options.get(key)
            container = clone(container, value=own)
    value: Dict[str, Node] = {"name": clone(name, value=str(name.value))}
    for key in ("command", "args"):
        found = container.get(key)
        if found is not None and found.kind == SCALAR and isinstance(found.value, str):
            found = clone(found, kind=SEQ, value=[found], keys={})  # a string: the list's one item
        if found is not None:
            value[key] = found
    for key in ("resources", "envFrom", "workingDir", "volumeMounts"):
        if container.get(key) is not None:
            value[key] = container.get(key)
    image = _image(container.get("image"))
    if image is not None:
        value["image"] = image
    env = _env(container.get("env"))
    if env is not None:
        value["env"] = env
    return clone(container, value=value, keys={k: container.keys.get(k, v) for k, v in value.items()})


def _image(image: Optional[Node]) -> Optional[Node]:
    """`repository:tag` (the chart renders no image without both), at the tag: where the version is."""
    if image is None or image.kind != MAP:
        return None
    repo, tag = image.get("repository"), image.get("tag")
    if not isinstance(scalar(repo), str) or scalar(tag) in (None, "") or tag.kind != SCALAR:
        return None
    return clone(tag, value=f"{repo.value}:{scalar_text(tag)}")


def _env(env: Optional[Node]) -> Optional[Node]:
    """The env list the chart renders: from a list as written, or from a mapping of name -> value/item."""
    if env is None or env.kind not in (MAP, SEQ):
        return None
    items: List[Node] = []
    if env.kind == SEQ:
        for item in env.value:
            if item.kind == MAP and item.get("value") is not None:
                item = clone(item, value={**item.value, "value": _text(item.get("value"))})
            items.append(item)
        return clone(env, value=items)
    for key, var in env.value.items():
        name = clone(env.keys[key], value=str(key))
        if var.kind == MAP and var.get("value") is not None:
            fields = {"name": name, "value": _text(var.get("value"))}
        elif var.kind == MAP and var.get("valueFrom") is not None:
            fields = {"name": name, "valueFrom": var.get("valueFrom")}
        elif var.kind == MAP:  # {secretKeyRef: ...}: the chart makes the item's other keys its valueFrom
            refs = {k: v for k, v in var.value.items() if k in _ENV_REFS}
            fields = {"name": name, "valueFrom": clone(var, value=refs, keys={k: var.keys[k] for k in refs})}
        else:
            fields = {"name": name, "value": _text(var)}
        items.append(clone(var, kind=MAP, value=fields, keys=dict(fields)))
    return clone(env, kind=SEQ, value=items, keys={})


def _text(value: Node) -> Node:
    """An env value as the chart renders it: numbers and booleans as strings (null stays null)."""
    if value.kind != SCALAR or value.value is None or isinstance(value.value, str):
        return value
    return clone(value, value=scalar_text(value))
