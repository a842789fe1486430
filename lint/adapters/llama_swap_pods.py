"""The pod that runs llama-swap with a ConfigMap-held config, joined to that config's models (engine_config_maps.py).

A cluster runs llama-swap as one container whose `--config` file is a ConfigMap's data key, mounted by a volume
(rrumana/k8s-homelab-2@3e8775d5:cluster/apps/ai/llama-backend: llama-swap-configmap.yaml's `config.yaml`, mounted
with `subPath: config.yaml` at /config/config.yaml, read by `--config /config/config.yaml` in
llama-swap-deployment.yaml). llama-swap starts every model's `cmd` as a child process of that container, so the
models run on the container's GPUs (its `resources`) and its pod's node (the node selector's device).

Joined only when exact: a pod of the file itself or of a file checked with it (config_map_refs.Maps) that sees the
ConfigMap's namespace, has a volume of it (`configMap` or a `projected` source), and whose container runs llama-swap
(its image `.../mostlygeek/llama-swap...` or its program `llama-swap`), names its config with `--config`/`-config`
and mounts that volume so that path is the data key's file. A container with no `--config` (the image's default
path), a mount elsewhere, or pods that disagree on the devices: not joined, the models' devices stay unstated.
Helm charts and app-template values are not pods here: not joined.
"""
from __future__ import annotations

import posixpath
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ctxlint.adapters.crd_common import namespace_of, objects, scalar
from ctxlint.adapters.hardware import container_type, count_from_resources, type_from_pod_spec
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SEQ, Node

# kind -> the path of its pod spec
_POD_SPECS = {"Deployment": ("spec", "template", "spec"), "StatefulSet": ("spec", "template", "spec"),
              "DaemonSet": ("spec", "template", "spec"), "ReplicaSet": ("spec", "template", "spec"),
              "Job": ("spec", "template", "spec"), "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
              "Pod": ("spec",)}
Devices = Tuple[Optional[Val[int]], Optional[Val[str]]]


def pod_devices(config_map: Node, key: str, loaded: LoadedFile, maps: Any) -> Optional[Devices]:
    """(GPU count, device) of the llama-swap container(s) that read the ConfigMap's data `key` as `--config`, when
    every such container agrees on them; None when none does or they differ."""
    name = scalar(config_map.dig("metadata", "name"))
    if not isinstance(name, str):
        return None
    found: List[Devices] = []
    for user_file, user in _candidates(config_map, loaded, maps, name):
        pod = user.dig(*_POD_SPECS[scalar(user.get("kind"))])
        for container in _reading_containers(pod, name, key):
            device = type_from_pod_spec(pod, user_file)
            found.append((count_from_resources(container.get("resources"), user_file),
                          container_type(container.get("resources"), device, user_file)))
    if not found:
        return None
    plain = {(c.value if c is not None else None, d.value if d is not None else None) for c, d in found}
    return found[0] if len(plain) == 1 else None


def _candidates(config_map: Node, loaded: LoadedFile, maps: Any, name: str) -> Iterable[Tuple[str, Node]]:
    """Workloads of this file, then of the files checked with it (maps), that may mount the ConfigMap."""
    own = namespace_of(config_map)
    for obj in objects(loaded):
        if scalar(obj.get("kind")) in _POD_SPECS and _sees(namespace_of(obj), own):
            yield loaded.path, obj
    if maps is not None and maps.holds(loaded):
        for user_file, obj in maps.mounters(loaded, name):
            if scalar(obj.get("kind")) in _POD_SPECS and _sees(namespace_of(obj), own):
                yield user_file, obj


def _sees(user_ns: Any, map_ns: Any) -> bool:
    """The same namespace written on both, or one left unset (`kubectl apply -n X` puts it in X)."""
    return user_ns is None or map_ns is None or user_ns == map_ns


def _reading_containers(pod: Optional[Node], name: str, key: str) -> Iterable[Node]:
    """The pod's llama-swap containers whose `--config` path is the ConfigMap key's mounted file."""
    volumes = _volume_paths(pod, name, key)
    containers = pod.get("containers") if volumes and pod is not None and pod.kind == MAP else None
    for c in containers.value if containers is not None and containers.kind == SEQ else ():
        if c.kind != MAP or not _runs_llama_swap(c):
            continue
        config = _config_path(c)
        if config is not None and config in _mounted_files(c, volumes):
            yield c


def _volume_paths(pod: Optional[Node], name: str, key: str) -> Dict[str, str]:
    """Volume name -> the path of `key` inside the volume (its `items[].path`, else the key), for the pod's
    volumes that hold the ConfigMap `name`."""
    out: Dict[str, str] = {}
    volumes = pod.get("volumes") if pod is not None and pod.kind == MAP else None
    for volume in volumes.value if volumes is not None and volumes.kind == SEQ else ():
        if volume.kind != MAP or not isinstance(scalar(volume.get("name")), str):
            continue
        sources = [volume.get("configMap")]
        projected = volume.dig("projected", "sources")
        sources += [s.get("configMap") for s in (projected.value if projected is not None and
                                                 projected.kind == SEQ else ()) if s.kind == MAP]
        for source in sources:
            if source is None or source.kind != MAP or scalar(source.get("name")) != name:
                continue
            path = _item_path(source.get("items"), key)
            if path is not None:
                out[scalar(volume.get("name"))] = path
    return out


def _item_path(items: Optional[Node], key: str) -> Optional[str]:
    """Where the volume puts `key`: its `items[].path` when items are listed (a key not listed is not there)."""
    if items is None or items.kind != SEQ:
        return key
    for item in items.value:
        if item.kind == MAP and scalar(item.get("key")) == key and isinstance(scalar(item.get("path")), str):
            return scalar(item.get("path"))
    return None


def _mounted_files(c: Node, volumes: Dict[str, str]) -> List[str]:
    """The paths in the container where the key's file appears, by its volumeMounts."""
    out = []
    mounts = c.get("volumeMounts")
    for mount in mounts.value if mounts is not None and mounts.kind == SEQ else ():
        if mount.kind != MAP:
            continue
        at, inside = scalar(mount.get("mountPath")), volumes.get(scalar(mount.get("name")))
        if not isinstance(at, str) or inside is None:
            continue
        sub = scalar(mount.get("subPath"))
        if sub is None or sub == "":
            out.append(posixpath.normpath(posixpath.join(at, inside)))
        elif isinstance(sub, str) and posixpath.normpath(sub) == posixpath.normpath(inside):
            out.append(posixpath.normpath(at))  # the file itself mounted at mountPath
        elif isinstance(sub, str) and posixpath.normpath(inside).startswith(posixpath.normpath(sub) + "/"):
            out.append(posixpath.normpath(posixpath.join(at, posixpath.relpath(inside, sub))))
    return out


def _words(c: Node) -> List[Any]:
    out: List[Any] = []
    for field in ("command", "args"):
        node = c.get(field)
        out += [scalar(item) for item in node.value] if node is not None and node.kind == SEQ else []
    return out


def _runs_llama_swap(c: Node) -> bool:
    image = scalar(c.get("image"))
    words = _words(c)
    return (isinstance(image, str) and "mostlygeek/llama-swap" in image) or \
        bool(words) and isinstance(words[0], str) and posixpath.basename(words[0]) == "llama-swap"


def _config_path(c: Node) -> Optional[str]:
    """The value of llama-swap's `--config` (Go's flag package: `-config`/`--config`, `X` or `=X`), normalized;
    None when not given as a plain string."""
    words = _words(c)
    for i, word in enumerate(words):
        if not isinstance(word, str):
            continue
        flag, eq, value = word.partition("=")
        if flag in ("-config", "--config"):
            value = value if eq else (words[i + 1] if i + 1 < len(words) else None)
            if isinstance(value, str) and value.startswith("/") and "$" not in value:
                return posixpath.normpath(value)
            return None
    return None
