"""`docker run` (podman, nerdctl) command lines: where the image is, and what `--entrypoint` names.

The image is the first word after `run` that is neither an option nor an option's value, so which
options take a value decides it (`--name vllm IMAGE`: `vllm` is the container's name, not the image).
The table is Docker's own: docs.docker.com/reference/cli/docker/container/run/ (options with a
value type); podman and nerdctl take the same spellings for these.
"""
from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

from ctxlint.lazyre import lazy_compile

from ..records import record
from .runners import run_verb

ENGINES_OF_CONTAINERS = ("docker", "podman", "nerdctl")
_VALUE_OPTIONS = frozenset({
    "--add-host", "--annotation", "--attach", "--blkio-weight", "--blkio-weight-device", "--cap-add", "--cap-drop",
    "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime",
    "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--detach-keys", "--device", "--device-cgroup-rule",
    "--device-read-bps", "--device-read-iops", "--device-write-bps", "--device-write-iops", "--dns", "--dns-option",
    "--dns-search", "--domainname", "--entrypoint", "--env", "--env-file", "--expose", "--gpus", "--group-add",
    "--health-cmd", "--health-interval", "--health-retries", "--health-start-interval", "--health-start-period",
    "--health-timeout", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--kernel-memory", "--label",
    "--label-file", "--link", "--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "--memory",
    "--memory-reservation", "--memory-swap", "--memory-swappiness", "--mount", "--name", "--net", "--network",
    "--net-alias", "--network-alias", "--oom-score-adj", "--pid", "--pids-limit", "--platform", "--publish", "--pull",
    "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt",
    "--sysctl", "--tmpfs", "--ulimit", "--user", "--userns", "--uts", "--volume", "--volume-driver", "--volumes-from",
    "--workdir", "--device-requests", "--hooks-dir", "--pod", "--secret", "--arch", "--os", "--variant"})
_VALUE_SHORT = frozenset("acehlmpuvw")  # -a, -c (cpu shares), -e, -h, -l, -m, -p, -u, -v, -w
# An expansion to zero or more words left as written because its value is not known: an array's unknown rest
# (`NCCL_ENV+=(...)` in an `if`, shellarrays.py), `"$@"`. Before the image it holds options (`"${DOCKER_OPTS[@]}"`),
# never the image alone: taken for it, the image was lost and with `--entrypoint` the launch too (sweep 39).
_WORDS_UNKNOWN = lazy_compile(r"\$(?:[@*]|\{(?:[@*]|[A-Za-z_][A-Za-z0-9_]*\[[@*]\])\})")


@record(frozen=True)
class RunLine:
    image: int  # index of the image word
    entrypoint: Optional[str] = None  # `--entrypoint PROGRAM` as written


def parse_run(texts: Sequence[str], options: frozenset = frozenset()) -> Optional[RunLine]:
    """The image of `docker [container] run|create [options] IMAGE ...` (indexes into `texts`), or None when
    the words are no run command or name no image. `options`: indexes of unknown words taken for options."""
    if not texts or texts[0].rsplit("/", 1)[-1] not in ENGINES_OF_CONTAINERS:
        return None
    run = run_verb(texts)
    if run is None:
        return None
    entrypoint, i = None, run + 1
    while i < len(texts):
        t = texts[i]
        if t == "--":
            i += 1
            break
        if i in options or _WORDS_UNKNOWN.fullmatch(t):
            i += 1
            continue
        if t.startswith("--"):
            name, eq, value = t.partition("=")
            if name in _VALUE_OPTIONS and not eq:
                value = texts[i + 1] if i + 1 < len(texts) else ""
                i += 1
            if name == "--entrypoint":
                entrypoint = value
            i += 1
            continue
        if t.startswith("-") and len(t) > 1:
            cut = next((k for k in range(1, len(t)) if t[k] in _VALUE_SHORT), None)
            if cut is not None and cut == len(t) - 1:  # `-e NAME=value`, `-itv /a:/b`: the value is the next word
                i += 2
                continue
            i += 1  # flags (`-it`, `--rm`) or a value glued on (`-eNAME=value`)
            continue
        break
    return RunLine(i, entrypoint) if i < len(texts) else None


# What asks Docker for an accelerator: `--gpus` (docs.docker.com/reference/cli/docker/container/run/ "--gpus: GPU
# devices to add to the container ('all' to pass all GPUs)"), `--runtime nvidia` (the NVIDIA Container Runtime), a
# CDI device (`--device nvidia.com/gpu=all`, `amd.com/gpu=0`) or a GPU's device node passed with `--device`
# (ROCm's /dev/kfd and /dev/dri, Intel's /dev/dri, NVIDIA's /dev/nvidia*, Neuron's /dev/neuron*, /dev/accel).
_GPU_DEVICES = ("nvidia.com/", "amd.com/", "intel.com/", "/dev/kfd", "/dev/dri", "/dev/nvidia", "/dev/neuron",
                "/dev/accel")


def _device_options(texts: Sequence[str], end: Optional[int] = None):
    """(option, value) of the options before a `docker run` line's image (`end`: its index, when the caller
    parsed the line already) that give its container devices: `--gpus`, `--device` and `--runtime` (the value
    after `=` or the next word), `--privileged` (a flag: a value only after `=`) and each variable `--env`/`-e`
    sets, as ("--env", "NAME=value"); one walk for requests_accelerator, requested_vendor and _more_devices."""
    if end is None:
        run = parse_run(texts)
        end = run.image if run is not None else 0
    i = 1
    while i < end:
        t = texts[i]
        name, eq, value = t.partition("=")
        # every option's value is stepped over as parse_run steps over it: a value spelled like an option
        # (`--name -de --device /dev/dri`, `-v -e --gpus all`) is no option, and an option after it is one
        if t.startswith("--") and name in _VALUE_OPTIONS and not eq:
            value = texts[i + 1] if i + 1 < end else ""
            i += 1
        if name in ("--gpus", "--device", "--runtime"):
            yield name, value.strip()
        elif name in ("--privileged", "--env"):
            yield name, value
        elif t.startswith("-") and not t.startswith("--"):  # `-e NAME=v`, `-eNAME=v`, `-ite NAME=v`, `-v /a:/b`
            cut = next((k for k in range(1, len(t)) if t[k] in _VALUE_SHORT), None)
            if cut is not None:
                value = t[cut + 1:]
                if not value:
                    value = texts[i + 1] if i + 1 < end else ""
                    i += 1
                if t[cut] == "e":
                    yield "--env", value
        i += 1


def requests_accelerator(texts: Sequence[str]) -> bool:
    """Does a `docker run` line ask for an accelerator for its container (the options before the image)? The same
    question a Kubernetes container's GPU limit answers (workload_devices.Devices.cpu_build)."""
    return any(name == "--gpus" or (name == "--runtime" and value.lower() == "nvidia") or
               (name == "--device" and value.startswith(_GPU_DEVICES)) for name, value in _device_options(texts))


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
# host has is no fact of the file. Docker's alone: podman's and nerdctl's `--gpus` are their own readings.
_GPU_KEYS = frozenset({"driver", "count", "device", "capabilities", "options"})


@record(frozen=True)
class GpuRequest:
    count: Optional[int]  # None when Docker refuses the value (`refused`)
    token: object  # the Token holding the value
    span: tuple  # the value's span in it (Token.span_of)
    refused: str = ""  # why Docker refuses the value (_csv_refusal), the container never starting


def requested_gpus(tokens: Sequence) -> Optional[GpuRequest]:
    """The GPU count the one `--gpus` option of a `docker run` line gives its container, or None (above)."""
    texts = [t.text for t in tokens]
    if not texts or texts[0].rsplit("/", 1)[-1] != "docker" or "--gpus" not in "".join(texts):
        return None
    run = parse_run(texts)
    found, i = [], 1
    while run is not None and i < run.image:
        name, eq, _ = texts[i].partition("=")
        if name == "--gpus":
            at, cut = (i, len(name) + 1) if eq else (i + 1, 0)
            found.append((tokens[at], cut) if at < run.image else None)
            i = at
        i += 1
    if len(found) != 1 or found[0] is None or found[0][0].unresolved or _more_devices(texts, run.image):
        return None
    token, cut = found[0]
    refused = _csv_refusal(token.text[cut:])
    if refused:
        return GpuRequest(None, token, token.span_of(cut, len(token.text)), refused)
    count = _csv_gpu_count(token.text[cut:])
    return GpuRequest(count, token, token.span_of(cut, len(token.text))) if count else None


def _csv_refusal(value: str) -> str:
    """Why the Docker CLI (GpuOpts.Set, above) or daemon (setNvidiaGPUs) refuses a `--gpus` value, as they say it;
    "" for a value they take (or one read otherwise here: `driver=cdi`, a device list the runtime reads)."""
    import csv

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


# What gives the container GPUs besides its `--gpus` request, so that its count is not theirs: `--privileged`
# (every device node of the host; by design, a maintainer in NVIDIA/nvidia-docker#764: `nvidia-smi` there lists
# every GPU), a GPU passed with `--device` (a CDI name such as `nvidia.com/gpu=all`, or a device node), and the
# container's own NVIDIA_VISIBLE_DEVICES / AMD_VISIBLE_DEVICES beside the one the daemon appends (which of the
# two the runtime's hook reads is not settled here).
_VISIBLE_ENV = ("NVIDIA_VISIBLE_DEVICES", "AMD_VISIBLE_DEVICES")


def _more_devices(texts: Sequence[str], end: int) -> bool:
    """Do a `docker run` line's options (those before the image, at `end`) give the container GPUs its `--gpus`
    does not count (above)?"""
    return any(name == "--privileged" and value.lower() not in ("false", "f", "0") or  # pflag's ParseBool
               name == "--device" and value.startswith(_GPU_DEVICES) or
               name == "--env" and value.partition("=")[0] in _VISIBLE_ENV
               for name, value in _device_options(texts, end))


def _csv_gpu_count(value: str) -> Optional[int]:
    import csv  # only a `docker run --gpus` line pays for it

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


# The vendor a `docker run` line's options name: Intel Gaudi's container runtime (`--runtime=habana`, as Habana's
# and TGI-Gaudi's docs run it), AMD's kernel driver node `/dev/kfd` (ROCm's docs pass it with /dev/dri) or an AMD
# CDI device (`amd.com/gpu=0`). /dev/dri (AMD or Intel) and /dev/accel (TPU or Gaudi) say no one vendor.
_VENDOR_OPTIONS = (("--runtime", "habana", "gaudi"), ("--device", "/dev/kfd", "amd"), ("--device", "amd.com/", "amd"))


def requested_vendor(texts: Sequence[str]) -> Optional[str]:
    """"gaudi" or "amd" when a `docker run` line's options ask for that vendor's devices, else None."""
    for name, value in _device_options(texts):
        found = next((v for o, prefix, v in _VENDOR_OPTIONS if o == name and value.lower().startswith(prefix)), None)
        if found is not None:
            return found
    return None


class _Word:
    """The `--entrypoint` program as a word for `script_index` (it reads `.text` only)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def docker_script_index(tokens: Sequence, script_index: Callable[[list], Optional[int]],
                        entrypoint_is_engine: Callable[[str], bool]) -> Optional[int]:
    """Index of the script word of `docker run [opts] IMAGE sh -c SCRIPT` (a shell after an image whose
    own entrypoint is not the engine, which would take the words as its own arguments) or of
    `docker run --entrypoint /bin/bash [opts] IMAGE -c SCRIPT`; None otherwise. `script_index` is
    command_prefixes.shell_script_index (`sh [opts] -c [opts] SCRIPT`). `--entrypoint ""` clears the image's
    ENTRYPOINT, so the words after the image are the whole command, whatever the image's own entrypoint was
    (docs.docker.com/engine/reference/run/ "ENTRYPOINT": "reset a containers entrypoint by passing an empty
    string", `--entrypoint="" mysql bash`; moby/moby#23718)."""
    run = parse_run([t.text for t in tokens])
    if run is None or run.image + 1 >= len(tokens):
        return None
    after = list(tokens[run.image + 1:])
    if run.entrypoint:
        found = script_index([_Word(run.entrypoint)] + after)
        return None if found is None else run.image + found
    if run.entrypoint is None and entrypoint_is_engine(tokens[run.image].text):
        return None
    found = script_index(after)
    return None if found is None else run.image + 1 + found


def docker_env(tokens: Sequence, env_type: Callable) -> list:
    """The container's environment of a `docker run` line: `-e NAME=value`, `--env NAME=value`, `--env=NAME=value`,
    `-eNAME=value` (as `env_type(name, token)`, the token holding `NAME=value`); `-e NAME` passes the host's value,
    not known, and is left out."""
    run = parse_run([t.text for t in tokens])
    out = []
    for i in range(1, run.image if run is not None else 0):
        text, token = tokens[i].text, None
        if text in ("-e", "--env") and i + 1 < run.image:
            token = tokens[i + 1]
        elif text.startswith(("--env=", "-e")) and text not in ("-e", "--env") and not text.startswith("--env-"):
            cut = len("--env=") if text.startswith("--env=") else 2
            t = tokens[i]
            token = type(t)(text[cut:], t.start, t.end, t.starts[cut:], t.ends[cut:], t.refs, t.item)
        if token is not None:
            name, eq, _ = token.text.partition("=")
            if eq and name.isidentifier():
                out.append(env_type(name, token))
    return out
