"""TGI's shard count when no `--num-shard` (or NUM_SHARD) states it: the launcher's own default, read only where
the file settles the GPUs it counts. A part of workload_devices.Devices.device_role apart because only a TGI engine
reads it: device_role imports it on the first one (as llamacpp_split.py), so a run with none never loads it.

`find_num_shards` (launcher/src/main.rs), with `--sharded` unset or true: the number of comma-separated items of
CUDA_VISIBLE_DEVICES, else of NVIDIA_VISIBLE_DEVICES, else 1 (`num_cuda_devices().unwrap_or(1)`); `--sharded false`
is 1. Per release (huggingface/text-generation-inference, launcher/src/main.rs at each tag):
- v0.2.0-v0.3.2 (v0.3.2 @1c19b0934e281f6a09d5adf393f92525b4070918): `num_shard.unwrap_or(1)`, no device read.
- v0.4.0 (@411d6247f41d5688ccb63a9f93fb97dfc50b05c0) on: CUDA_VISIBLE_DEVICES only.
- v0.8.0 (@081b92658470bf5b40aec7427e084b7a96c8fbd2) on: NVIDIA_VISIBLE_DEVICES after it. `all` is one item: one
  shard. ZE_AFFINITY_MASK (Intel's) after both from v2.1.0 (@83634dc1, #2047): what an Intel (or other non-NVIDIA)
  image, which sets no NVIDIA_VISIBLE_DEVICES, counts where the file sets it.
- v3.3.1 (@767a65202d2a00af355494764ac0c60bece7dcb5, #3230) asks `nvidia-smi` for `all`, but turns its count into
  one string item ("4".split(',') is one): still one shard.
- v3.3.7 (@dfb3fbe78e0d1d69251bd33065591c61bafdfaa8, #3346) joins the GPU UUIDs nvidia-smi lists, for `all` and
  `void`: as many shards as the container's GPUs, a number the file does not hold (@db931fcf, main, reads alike).
What sets NVIDIA_VISIBLE_DEVICES: Docker's daemon for `docker run --gpus N` and a Compose reservation (or `gpus:`
entry) of N, in one
of two ways the host picks, not the file. Through NVIDIA's prestart hook it appends `0,...,N-1` (device ids joined;
`all` for -1: moby/moby@89c5e8fd (v28.5.2):daemon/devices_nvidia_linux.go setNvidiaGPUs), the last of the name
and so the one runc keeps (opencontainers/runc@76d9cf5d:libcontainer/env.go prepareEnv), over the image's `all`.
From docker-v29.2.0, where NVIDIA's `nvidia-cdi-hook` is installed (Container Toolkit v1.16 on), the request is
made CDI devices instead (moby/moby@86f122af), and the toolkit's CDI spec sets NVIDIA_VISIBLE_DEVICES=void
(NVIDIA/nvidia-container-toolkit@d34b3046:pkg/nvcdi/wrapper.go GetCommonEdits), as its runtime's default jit-cdi
mode (v1.18 on) does for `--runtime nvidia` with ids: `void` is one item, one shard, before v3.3.7, and nvidia-smi's
N GPUs from it. So N shards on a release surely at or past v3.3.7; before it (or a release not known) 1 or N, not
known. Kubernetes' `nvidia.com/gpu: N` is the node's device plugin's: NVIDIA's sets the
allocated ids with its default `envvar` list strategy (NVIDIA/k8s-device-plugin docs/customizing.md), GKE's sets
no variable at all (GoogleCloudPlatform/container-engine-accelerators@0129f83e:pkg/gpu/nvidia/beta_plugin.go,
Allocate: device nodes and mounts only), leaving the CUDA image's `all`: one shard before v3.3.7. So a count from
anything but Docker's device request leaves the shard count not known, never the count guessed."""
from __future__ import annotations

from typing import Optional, Tuple

from ctxlint.model import Val
from ctxlint.versions import parse_version

from ..records import replace

_READS_CUDA = (0, 4, 0)  # find_num_shards counts CUDA_VISIBLE_DEVICES
_READS_NVIDIA = (0, 8, 0)  # ... then NVIDIA_VISIBLE_DEVICES
_READS_ZE = (2, 1, 0)  # ... then ZE_AFFINITY_MASK
_COUNTS_ALL = (3, 3, 7)  # `all` / `void`: nvidia-smi's GPUs, not one
# Images whose GPUs are not NVIDIA's: Docker's AMD hook sets AMD_VISIBLE_DEVICES, which TGI does not count
_OTHER_VENDOR = ("rocm", "gaudi", "intel", "xpu", "neuron", "cpu")
UNKNOWN = "tgi_shards"  # the unresolved-setting key CTX208 explains (capacity_notes._GPUS_UNKNOWN)
# IBM's fork (TGIS) counts as TGI v0.8.0-v3.3.0 does: NUM_GPUS (read as --num-shard, flags_tgis), else the items of
# CUDA_VISIBLE_DEVICES, else of NVIDIA_VISIBLE_DEVICES (`all` one item), else 1; no ZE_AFFINITY_MASK, no nvidia-smi
# (IBM/text-generation-inference@006006d7974604558665d48a81ff2b1d1d8f9537:launcher/src/main.rs find_num_shards,
# num_cuda_devices)
_TGIS_RULES = (0, 8, 0)


def _release(release) -> Optional[tuple]:
    """The release as (major, minor, patch); a tag that names no patch (`3.3`) is any of its series', so it is
    read as its newest: only a release surely below a change is read as before it."""
    parsed = parse_version(getattr(release, "value", release)) if release is not None else None
    if parsed is None or not parsed.release:
        return None
    return tuple(parsed.release[:3]) + (10 ** 6,) * (3 - len(parsed.release[:3]))


def _lowest(release) -> Optional[tuple]:
    """The release as (major, minor, patch) read as the oldest its tag names (`3.3` as 3.3.0): only a release surely
    at or past a change is read as after it."""
    parsed = parse_version(getattr(release, "value", release)) if release is not None else None
    if parsed is None or not parsed.release:
        return None
    return tuple(parsed.release[:3]) + (0,) * (3 - len(parsed.release[:3]))


def default_shards(reader, inv, facts, release, image: str = "", tgis: bool = False):
    """`facts` with TGI's own shard count as its tensor-parallel size where no --num-shard states one: the GPUs the
    file gives the engine where TGI counts them as the file says (above); parallel_unknown where the count TGI reads
    is not the file's to tell (a Kubernetes limit over 1; `docker run --gpus all` on v3.3.7 or a release not known;
    `--gpus N` before v3.3.7 or on a release not known); `facts` as it is where TGI runs one shard (or reads what
    ctxlint already read)."""
    if facts.parallelism.tensor is not None or inv.settings.get("num_shard") is not None or facts.parallel_unknown:
        return facts
    sharded = inv.settings.get("sharded")
    if sharded is not None and str(sharded.value).lower() in ("false", "0"):
        return facts
    version = _TGIS_RULES if tgis else _release(release)
    if version is not None and version < _READS_CUDA:
        return facts
    seen = _visible(reader, "CUDA_VISIBLE_DEVICES")
    other = any(v in image.lower() for v in _OTHER_VENDOR)
    if seen is None and other and (version is None or version >= _READS_ZE) and \
            _visible(reader, "NVIDIA_VISIBLE_DEVICES") is None:  # an image with no NVIDIA_VISIBLE_DEVICES of its own
        seen = _visible(reader, "ZE_AFFINITY_MASK")
    if seen is not None:
        count, at, raw = seen
        if count is None:
            return replace(facts, parallel_unknown=True)
        return _sharded(facts, count, at, f"TGI runs a shard on each of the {count} GPUs {raw} lists")
    if version is not None and version < _READS_NVIDIA or other:
        return facts  # the one shard TGI runs where no CUDA_VISIBLE_DEVICES (nor ZE_AFFINITY_MASK) is set
    c = reader.c
    if getattr(c, "gpus_uncounted", None):  # `--gpus all`, `count: all`, the image's NVIDIA_VISIBLE_DEVICES: `all`
        return facts if version is not None and version < _COUNTS_ALL else replace(facts, parallel_unknown=True)
    count = c.accelerator_count
    if count is None or not isinstance(count.value, int) or count.value < 2:
        return facts
    if _docker_request(count):  # a CDI injection's `void` is one shard before v3.3.7: the host's to say then
        lowest = _TGIS_RULES if tgis else _lowest(release)
        if lowest is None or lowest < _COUNTS_ALL:
            return replace(facts, parallel_unknown=True)
        return _sharded(facts, count.value, count.source,
                        f"TGI runs a shard on each of the {count.value} GPUs Docker lists in NVIDIA_VISIBLE_DEVICES")
    return replace(facts, parallel_unknown=True)  # a device plugin's, a scheduler's: what TGI counts is not known


def _sharded(facts, n: int, at, how: str):
    return replace(facts, parallelism=replace(facts.parallelism, tensor=Val(n, at, raw=how)))


def _docker_request(count) -> bool:
    """Whether Docker's daemon sets NVIDIA_VISIBLE_DEVICES to the count's GPUs: `docker run --gpus N`, `--runtime
    nvidia -e NVIDIA_VISIBLE_DEVICES=ids`, a Compose device reservation's or `gpus:` entry's `count` /
    `device_ids` (Compose makes each `gpus:` entry the same device request as a reservation, the `gpu` capability
    added: docker/compose@f72979427042620a94dd52ce78b39c68cb02c085:pkg/compose/create.go getDeployResources), or
    `runtime: nvidia` with ids."""
    raw = str(count.raw or "")
    path = str(count.source.path or "") if count.source is not None else ""
    requested = ".deploy.resources.reservations.devices[" in path or ".gpus[" in path
    return raw.startswith("docker run --gpus") or "NVIDIA_VISIBLE_DEVICES=" in raw or \
        requested and path.endswith((".count", ".device_ids"))


def _visible(reader, name: str) -> Optional[Tuple[Optional[int], object, str]]:
    """(items, where, as written) of a device list (CUDA_VISIBLE_DEVICES, ZE_AFFINITY_MASK) set for the engine,
    items None when its value is not known; None when it is not set. TGI counts the items split at `,`, whatever
    they are (`GPU-...` UUIDs too)."""
    setting = reader.device_setting(name)
    if setting is None:
        return None
    value, at = setting
    if not isinstance(value, str):
        return None, at, ""
    return len(value.split(",")), at, f"{name}={value}"
