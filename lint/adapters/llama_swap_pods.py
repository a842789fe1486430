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
path), a mount elsewhere, a container `env` that picks devices (each model's process inherits it), a privileged container (its
processes see every GPU of the node), or pods
that disagree on the devices: not joined, the models' devices stay unstated.
Helm charts and app-template values are not pods here: not joined.
"""
from __future__ import annotations

import os
import posixpath
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ctxlint.adapters.crd_common import namespace_of, objects, scalar
from ctxlint.adapters.hardware import container_type, count_from_resources, type_from_pod_spec
from ctxlint.adapters.pod_specs import _privileged
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SEQ, Node

# kind -> the path of its pod spec
_POD_SPECS = {"Deployment": ("spec", "template", "spec"), "StatefulSet": ("spec", "template", "spec"),
              "DaemonSet": ("spec", "template", "spec"), "ReplicaSet": ("spec", "template", "spec"),
              "Job": ("spec", "template", "spec"), "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
              "Pod": ("spec",)}
Devices = Tuple[Optional[Val[int]], Optional[Val[str]]]
# what CUDA, ROCm/HIP and llama.cpp's Vulkan backend read to pick the devices a process sees
_NARROWING = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GGML_VK_VISIBLE_DEVICES")


def pod_devices(config_map: Node, key: str, loaded: LoadedFile, maps: Any) -> Tuple[Optional[Devices], List[str]]:
    """(GPU count, device) of the llama-swap container(s) that read the ConfigMap's data `key` as `--config`, when
    every such container agrees on them, else None; and why a llama-swap container that mounts the ConfigMap is not
    joined (another path, no `--config`, pods that disagree), for CTX008."""
    name = scalar(config_map.dig("metadata", "name"))
    if not isinstance(name, str):
        return None, []
    found: List[Tuple[str, Devices]] = []
    why: List[str] = []
    for user_file, user in _candidates(config_map, loaded, maps, name):
        pod = user.dig(*_POD_SPECS[scalar(user.get("kind"))])
        volumes = _volume_paths(pod, name, key)
        for container in _llama_swap_containers(pod) if volumes else ():
            mounted, config = _mounted_files(container, volumes), _config_path(container)
            where = f"{os.path.basename(user_file)}:{container.source(user_file).line}"
            narrowed = _narrowing_env(container)
            if config is not None and config in mounted and _privileged(container):
                why.append(f"the llama-swap container at {where} is privileged: every model's process sees every GPU "
                           "of its node, not its GPU limit, so it is not joined")
            elif config is not None and config in mounted and narrowed:
                why.append(f"the llama-swap container at {where} sets {', '.join(narrowed)}, which every model's "
                           "process inherits: which of its GPUs a model sees is not read here, so it is not joined")
            elif config is not None and config in mounted:
                device = type_from_pod_spec(pod, user_file)
                found.append((where, (count_from_resources(container.get("resources"), user_file),
                                      container_type(container.get("resources"), device, user_file))))
            elif mounted:
                why.append(f"the llama-swap container at {where} mounts it at {', '.join(mounted)} but "
                           + (f"reads --config {config}: not joined, its GPUs and device are not this config's "
                              "models'" if config else
                              "names no absolute --config path (the image's own default, or a relative or variable "
                              "one, is not read here): not joined, so its GPUs and device may be this config's "
                              "models' but are not given to them"))
    plain = {tuple(v.value if v is not None else None for v in devices) for _, devices in found}
    if len(plain) > 1:
        said = "; ".join(f"{where}: {_said(devices)}" for where, devices in found)
        return None, why + [f"{len(found)} llama-swap containers read it as --config with different GPUs or devices "
                            f"({said}): which one runs a model is not known, so its GPUs and device are unknown"]
    return (found[0][1] if found else None), why


def _narrowing_env(c: Node) -> List[str]:
    """The device-selecting variables of the container's `env`: llama-swap starts each model's process with its own
    environment and the model's `env` after it (mostlygeek/llama-swap@0bdb3720:internal/process/process_command.go),
    so they narrow the GPUs every model sees."""
    env = c.get("env")
    names = [scalar(item.get("name")) for item in (env.value if env is not None and env.kind == SEQ else ())
             if item.kind == MAP]
    return [name for name in names if name in _NARROWING]


def _said(devices: Devices) -> str:
    count, device = devices
    return (f"{count.value} GPU(s)" if count is not None else "no GPU limit") + \
        (f" of {device.value}" if device is not None else "")


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


def _llama_swap_containers(pod: Optional[Node]) -> Iterable[Node]:
    containers = pod.get("containers") if pod is not None and pod.kind == MAP else None
    for c in containers.value if containers is not None and containers.kind == SEQ else ():
        if c.kind == MAP and _runs_llama_swap(c):
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
        if not isinstance(at, str) or inside is None or mount.get("subPathExpr") is not None:
            continue  # a subPathExpr's directory is known only in the running pod
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
    """The value of llama-swap's `--config` (Go's flag package: `-config`/`--config`, `X` or `=X`; given twice,
    as in a `command` and its `args`, the last one is read), normalized; None when not given as a plain string."""
    words = _words(c)
    found: Optional[str] = None
    for i, word in enumerate(words):
        if not isinstance(word, str):
            continue
        flag, eq, value = word.partition("=")
        if flag in ("-config", "--config"):
            value = value if eq else (words[i + 1] if i + 1 < len(words) else None)
            found = posixpath.normpath(value) if isinstance(value, str) and value.startswith("/") and \
                "$" not in value else None
    return found
