"""`docker run` (podman, nerdctl) command lines: where the image is, and what `--entrypoint` names.

The image is the first word after `run` that is neither an option nor an option's value, so which
options take a value decides it (`--name vllm IMAGE`: `vllm` is the container's name, not the image).
The table is Docker's own: docs.docker.com/reference/cli/docker/container/run/ (options with a
value type); podman and nerdctl take the same spellings for these.
"""
from __future__ import annotations

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


def _device_options(texts: Sequence[str], end: Optional[int] = None, at: bool = False):
    """(option, value) of the options before a `docker run` line's image (`end`: its index, when the caller
    parsed the line already) that give its container devices: `--gpus`, `--device` and `--runtime` (the value
    after `=` or the next word), `--privileged` (a flag: a value only after `=`) and each variable `--env`/`-e`
    sets, as ("--env", "NAME=value"); one walk for requests_accelerator, requested_vendor and _more_devices.
    `at`: (option, value, index of the word holding the value) instead, for docker_devices to place a finding."""
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
            yield (name, value.strip(), i) if at else (name, value.strip())
        elif name in ("--privileged", "--env"):
            yield (name, value, i) if at else (name, value)
        elif t.startswith("-") and not t.startswith("--"):  # `-e NAME=v`, `-eNAME=v`, `-ite NAME=v`, `-v /a:/b`
            cut = next((k for k in range(1, len(t)) if t[k] in _VALUE_SHORT), None)
            if cut is not None:
                value = t[cut + 1:]
                if not value:
                    value = texts[i + 1] if i + 1 < end else ""
                    i += 1
                if t[cut] == "e":
                    yield ("--env", value, i) if at else ("--env", value)
        i += 1


def requests_accelerator(texts: Sequence[str]) -> bool:
    """Does a `docker run` line ask for an accelerator for its container (the options before the image)? The same
    question a Kubernetes container's GPU limit answers (workload_devices.Devices.cpu_build)."""
    return any(name == "--gpus" or (name == "--runtime" and value.lower() == "nvidia") or
               (name == "--device" and value.startswith(_GPU_DEVICES)) for name, value in _device_options(texts))


@record(frozen=True)
class GpuRequest:
    count: Optional[int]  # None when Docker refuses the value (`refused`)
    token: object  # the Token holding the value
    span: tuple  # the value's span in it (Token.span_of)
    refused: str = ""  # why Docker refuses the value (gpu_values.csv_refusal), the container never starting
    # The options that give the container GPUs not counted (`--gpus all`, `--gpus $N`, `--privileged --gpus 1`,
    # two `--gpus`), as written: how many the engine sees is the host's, no fact of the file (count None)
    uncounted: str = ""
    # what gives a count without `--gpus` (docker_devices.device_gpus), as written: `--device` render nodes, or
    # `--runtime nvidia` with the container's NVIDIA_VISIBLE_DEVICES; "" for a `--gpus` count
    written: str = ""


def requested_gpus(tokens: Sequence) -> Optional[GpuRequest]:
    """The GPU count the one `--gpus` option of a `docker run` line gives its container (above); None for a line
    with no `--gpus` value, or one that gives no GPU (`--gpus 0`). A count not known is `uncounted`: the words
    that give the container GPUs whose number the host decides (`all`, a value not known, devices beside it)."""
    texts = [t.text for t in tokens]
    if not texts or texts[0].rsplit("/", 1)[-1] not in ENGINES_OF_CONTAINERS:
        return None
    if "--gpus" not in "".join(texts):
        return _without_gpus(tokens, texts)
    docker = texts[0].rsplit("/", 1)[-1] == "docker"
    run = parse_run(texts)
    found, i = [], 1
    while run is not None and i < run.image:
        name, eq, _ = texts[i].partition("=")
        if name == "--gpus":
            at, cut = (i, len(name) + 1) if eq else (i + 1, 0)
            found.append((tokens[at], cut) if at < run.image else None)
            i = at
        i += 1
    given = [f for f in found if f is not None]
    if not given:
        return _without_gpus(tokens, texts) if not found else None
    token, cut = given[0]
    span = token.span_of(cut, len(token.text))
    if not docker:
        # podman's and nerdctl's `--gpus` give GPUs, but not by Docker's reading as settled here: nerdctl parses
        # the same CSV (containerd/nerdctl@efeb191a9378e09eb9ad7d3db73984fb713c2b9f:pkg/cmd/container/run_gpus.go
        # ParseGPUOptCSV) but turns it into devices its own way, which changed at v2.3 (CDI: its docs/gpu.md), and
        # podman's (5.x) is its own option, not checked against its source. Uncounted, never one (it was no GPU
        # statement at all, so one GPU: a false CTX209 for llama.cpp splitting its layers over them)
        return GpuRequest(None, token, span, uncounted=f"{texts[0].rsplit('/', 1)[-1]} --gpus {token.text[cut:]}")
    if len(found) != 1 or token.unresolved:
        return GpuRequest(None, token, span, uncounted=f"--gpus {token.text[cut:]}" if len(found) == 1 else
                          f"{len(found)} --gpus options")
    from .gpu_values import csv_gpu_count, csv_no_gpu, csv_refusal  # only a line with one `--gpus` value

    refused = csv_refusal(token.text[cut:])
    if refused:
        return GpuRequest(None, token, span, refused)
    written = f"--gpus {token.text[cut:]}"
    more = _more_devices(texts, run.image)
    if more:
        return GpuRequest(None, token, span, uncounted=f"{more} {written}")
    count = csv_gpu_count(token.text[cut:])
    if count:
        return GpuRequest(count, token, span)
    return None if csv_no_gpu(token.text[cut:]) else GpuRequest(None, token, span, uncounted=written)


def _without_gpus(tokens: Sequence, texts: Sequence[str]) -> Optional[GpuRequest]:
    """The GPUs of a line with no `--gpus` that gives its container some by `--runtime nvidia` or a `--device`
    (docker_devices.device_gpus); None for a line with neither."""
    if not any(t.startswith(("--runtime", "--device")) for t in texts):
        return None
    from .docker_devices import device_gpus  # only a line that gives GPUs by a runtime or a device node

    return device_gpus(tokens, texts)


# What gives the container GPUs besides its `--gpus` request, so that its count is not theirs: `--privileged`
# (every device node of the host; by design, a maintainer in NVIDIA/nvidia-docker#764: `nvidia-smi` there lists
# every GPU), a GPU passed with `--device` (a CDI name such as `nvidia.com/gpu=all`, or a device node), and the
# container's own NVIDIA_VISIBLE_DEVICES / AMD_VISIBLE_DEVICES beside the one the daemon appends (which of the
# two the runtime's hook reads is not settled here).
_VISIBLE_ENV = ("NVIDIA_VISIBLE_DEVICES", "AMD_VISIBLE_DEVICES")


def _more_devices(texts: Sequence[str], end: int) -> str:
    """The option of a `docker run` line (those before the image, at `end`) that gives the container GPUs its
    `--gpus` does not count (above), as written (`--privileged`, `--device VALUE`, `-e NAME=VALUE`); "" for none."""
    for name, value in _device_options(texts, end):
        if name == "--privileged" and value.lower() not in ("false", "f", "0"):  # pflag's ParseBool
            return "--privileged"
        if name == "--device" and value.startswith(_GPU_DEVICES):
            return f"--device {value}"
        if name == "--env" and value.partition("=")[0] in _VISIBLE_ENV:
            return f"-e {value}"
    return ""


# The vendor a `docker run` line's options name: Intel Gaudi's container runtime (`--runtime=habana`, as Habana's
# and TGI-Gaudi's docs run it), AMD's kernel driver node `/dev/kfd` (ROCm's docs pass it with /dev/dri) or an AMD
# CDI device (`amd.com/gpu=0`), or Huawei Ascend's NPU nodes `/dev/davinci0`..`/dev/davinci7` and
# `/dev/davinci_manager` (vllm-project/vllm-ascend@3351d0f1e4cbb2fdb56f3b27e3ddfdee1cf94108:docs/source/quick_start.md
# passes them to its container). /dev/dri (AMD or Intel) and /dev/accel (TPU or Gaudi) say no one vendor.
_VENDOR_OPTIONS = (("--runtime", "habana", "gaudi"), ("--device", "/dev/kfd", "amd"), ("--device", "amd.com/", "amd"),
                   ("--device", "/dev/davinci", "ascend"))


def requested_vendor(texts: Sequence[str]) -> Optional[str]:
    """"gaudi", "amd" or "ascend" when a `docker run` line's options ask for that vendor's devices, else None."""
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
