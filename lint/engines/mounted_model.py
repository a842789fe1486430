"""A model path that is a bind mount's target: `docker run -v $PWD/models/Qwen2-7B-Instruct:/data IMAGE --model-id /data`.

The engine loads the host folder the mount puts at the path, so the model is named by that folder, as a literal
local path is (resolution/names.py matches a local path by its folder name): `/data` names nothing, the host's
`$PWD/models/Qwen2-7B-Instruct` (or Compose's `./models/Qwen2-7B-Instruct`) names the folder the engine reads.
Only a model path that is the mount's target itself is followed: a path below a target already types its own
folder name (`-v ./models:/models --model-id /models/NAME`). A host path whose last segment is not typed
(`-v $volume:/data`) names nothing and is left as it was; nothing is guessed, nor are two mounts at one target
(`-v A:/data -v B:/data`, which Docker refuses: "Duplicate mount point") read as the last. Docker's `-v HOST:TARGET[:OPTIONS]`
and `--mount type=bind,source=HOST,target=TARGET` (docs.docker.com/reference/cli/docker/container/run/
"--volume", "--mount"); Compose's `volumes:` (config_files.compose_mounts). (Sweep eng26:
HouXianzhoua/llm-inference-platform `scripts/start-tgi-qwen.sh`, `docker-compose.yml`.)
"""
from __future__ import annotations

import posixpath
from typing import Dict, Mapping, Optional, Sequence

_MOUNT_OPTIONS = frozenset({"ro", "rw", "z", "Z", "cached", "delegated", "consistent", "shared", "slave",
                            "private", "rshared", "rslave", "rprivate", "nocopy"})


def run_mounts(texts: Sequence[str]) -> Dict[str, str]:
    """Container path -> host path as written, from the `-v`/`--volume`/`--mount` options of a `docker run`
    line's words before its image (`texts`)."""
    out: Dict[str, str] = {}
    i = 0
    while i < len(texts):
        t = texts[i]
        value = None
        if t in ("-v", "--volume", "--mount") and i + 1 < len(texts):
            value, i = texts[i + 1], i + 1
            kind = "mount" if t == "--mount" else "volume"
        elif t.startswith(("--volume=", "--mount=")):
            value, kind = t.split("=", 1)[1], "mount" if t.startswith("--mount=") else "volume"
        i += 1
        if value is None:
            continue
        pair = _mount(value) if kind == "mount" else _volume(value)
        if pair is not None:
            target = posixpath.normpath(pair[0])
            # two mounts at one target: the daemon refuses the container ("Duplicate mount point: /data"),
            # so neither host folder is the one an engine loads
            out[target] = "" if target in out else pair[1]
    return out


def _volume(value: str) -> Optional[tuple]:
    parts = value.split(":")
    if len(parts) > 2 and all(o in _MOUNT_OPTIONS for o in parts[-1].split(",")):
        parts = parts[:-1]
    if len(parts) != 2 or not parts[1].startswith("/"):
        return None  # a named volume has no host folder; `${X:-d}` splits apart: not read
    return parts[1], parts[0]


def _mount(value: str) -> Optional[tuple]:
    fields = dict(f.split("=", 1) for f in value.split(",") if "=" in f)
    if fields.get("type", "volume") != "bind":
        return None
    source = fields.get("source") or fields.get("src")
    target = fields.get("target") or fields.get("destination") or fields.get("dst")
    return (target, source) if source and target and target.startswith("/") else None


def host_folder(path: str, mounts: Optional[Mapping[str, str]]) -> Optional[str]:
    """The host path as written that a bind mount puts at the model's `path` itself, when its last segment is a
    typed folder name; else None."""
    if not mounts or not path.startswith("/"):
        return None
    wanted = posixpath.normpath(path)
    hosts = {host.rstrip("/") for target, host in mounts.items() if posixpath.normpath(target) == wanted}
    if len(hosts) != 1:
        return None  # none, or several at one target (`/data` and `/data/`): no one folder to name
    host = hosts.pop()
    name = host.rsplit("/", 1)[-1]
    if name and "/" in host and not any(ch in name for ch in "$`~") and name not in (".", ".."):
        return host
    return None
