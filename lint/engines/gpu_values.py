"""`docker run --gpus VALUE` as the Docker CLI and daemon read the value: how many GPUs it gives the container, and
why Docker refuses it (docker_run.requested_gpus, which finds the one `--gpus` of a line). Imported only for a line
with a `--gpus` value."""
from __future__ import annotations

import csv
import re
from typing import Optional

# How many GPUs `docker run --gpus VALUE` gives its container, read as the Docker CLI and daemon read it: the value
# is one CSV record (docker/cli@29e34aba155d666010ff4da38b54c0eccbe1071d:opts/gpus.go GpuOpts.Set, encoding/csv);
# a field without `=` is the count (`2`, or `all`: -1), else `count=N`, `device=A,B` (device IDs), `driver=`,
# `capabilities=`, `options=`; neither count nor devices is count 1. The daemon then exposes the listed devices,
# or the first N, or all (NVIDIA_VISIBLE_DEVICES), and refuses a request with both a count and devices ("cannot
# set both Count and DeviceIDs on device request", moby/moby@18a2f3f01538afa4c631c2b09f898dd3d8a8168d:
# daemon/nvidia_linux.go setNvidiaGPUs): so `--gpus device=0,1` unquoted (the fields `device=0` and `1`) starts
# nothing, and `--gpus '"device=0,1"'` is two GPUs. `all`, a count of 0, a value not known (`$GPUS`), a key
# Docker does not know, `driver=cdi` (daemon/devices.go handleDevice hands it to the CDI driver, whose device
# `nvidia.com/gpu=all` is every GPU) or two `--gpus` options leave the count unknown (None): how many GPUs the
# host has is no fact of the file. Docker's alone: podman's and nerdctl's `--gpus` give GPUs not counted (docker_run.requested_gpus).
_GPU_KEYS = frozenset({"driver", "count", "device", "capabilities", "options"})


def csv_refusal(value: str) -> str:
    """Why the Docker CLI (GpuOpts.Set, above) or daemon (setNvidiaGPUs) refuses a `--gpus` value, as they say it;
    "" for a value they take (or one read otherwise here: `driver=cdi`, a device list the runtime reads)."""
    try:
        fields = next(csv.reader([value], strict=True), [])
    except csv.Error:
        return ""  # Go's encoding/csv and Python's differ on a stray quote: not said
    seen: set = set()
    count = devices = False
    for field in fields:
        key, eq, val = field.partition("=")
        if key in seen:
            return f"gpu request key '{key}' can be specified only once"
        seen.update((key,) if eq else (key, "count"))
        if not eq or key == "count":
            number = val if eq else key
            if number != "all" and not re.fullmatch(r"[-+]?[0-9]+", number):
                return f'invalid count ({number}): value must be either "all" or an integer'
            # the last count read is the request's (GpuOpts.Set assigns req.Count each time); the daemon refuses
            # only a count that is not 0 beside devices (`req.Count != 0 && len(req.DeviceIDs) > 0`), so
            # `device=1,0` is GPU 1 alone, started
            count = number == "all" or int(number) != 0
        elif key == "device":
            devices = True
        elif key not in _GPU_KEYS:
            return f"unexpected key '{key}' in '{field}'"
    if count and devices:
        return "cannot set both Count and DeviceIDs on device request"
    return ""


def csv_gpu_count(value: str) -> Optional[int]:
    try:
        fields = next(csv.reader([value], strict=True), [])
    except csv.Error:
        return None
    count, devices, seen = None, None, set()
    for field in fields or [""]:  # an empty value is no record: Docker refuses it (the `""` key below)
        key, eq, val = field.partition("=")
        if key in seen or (eq and key not in _GPU_KEYS):
            return None  # Docker refuses the value
        seen.update((key,) if eq else (key, "count"))  # a bare count is `count` too (`2,count=3` is refused)
        if not eq or key == "count":
            digits = (val if eq else key).removeprefix("+")  # strconv.Atoi takes a sign
            if not digits or digits.strip("0123456789"):
                return None  # `all` (-1), a negative count, or no number
            count = int(digits)
        elif key == "device":
            devices = val.split(",")
            # the daemon's NVIDIA_VISIBLE_DEVICES (AMD_VISIBLE_DEVICES): `all` is every GPU, `none`, `void` and
            # an empty value none (NVIDIA/nvidia-container-runtime README.md, "NVIDIA_VISIBLE_DEVICES"); a
            # device named twice is one GPU or two as the runtime's hook reads it
            if len(set(devices)) != len(devices) or {"", "all", "none", "void"} & {d.lower() for d in devices}:
                return None
        elif key == "driver" and val not in ("", "nvidia", "amd"):
            return None  # `cdi`: its device names are CDI's (`nvidia.com/gpu=all`, every GPU); others refused
    if count and devices is not None:
        return None  # the daemon refuses both (a count of 0 it does not: `req.Count != 0`)
    if devices is not None:
        return len(devices)
    return 1 if count is None else count if count > 0 else None


def csv_no_gpu(value: str) -> bool:
    """Does a `--gpus` value Docker takes give the container no GPU: a count of 0, or devices `none`, `void` or
    empty (NVIDIA_VISIBLE_DEVICES, above)? Another value csv_gpu_count does not count gives GPUs not counted."""
    try:
        fields = next(csv.reader([value], strict=True), [])
    except csv.Error:
        return False
    for field in fields:
        key, eq, val = field.partition("=")
        if (not eq or key == "count") and (val if eq else key).lstrip("+").isdigit() and int(val if eq else key) == 0:
            return True
        if key == "device" and {d.strip().lower() for d in val.split(",")} <= {"", "none", "void"}:
            return True
    return False
