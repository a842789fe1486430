"""GPUs a Compose service gets that its reservation does not count: `runtime: nvidia` (the container's
NVIDIA_VISIBLE_DEVICES, or the image's: nvidia-container-toolkit internal/config/image/cuda_image.go), `devices:`
nodes (ROCm's /dev/dri is every GPU), a reservation with no count (compose-go transform/devices.go: `count: all`),
`gpus: all`, `privileged: true`. llama.cpp splits its layers over every GPU it sees, so one GPU read there put every
layer and -c cell on one (a false fit, or a false CTX209); a count the file states is read
(adapters/compose_gpus.py)."""
from __future__ import annotations

import pytest

from ctxlint.engine import Settings, lint_text

SERVICE = """\
services:
  llm:
    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b6000
{gpus}    volumes:
      - /models:/models
    command: -m /models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf -c 131072 -ngl 99 --port 8080
"""
L4 = Settings(default_accelerators=(("**", "L4"),))
COMPOSE_GPUS_WHY = (
    "KV pool of unified not declared and not derivable: the device is stated (L4) but the Compose service gets GPUs no "
    "count states (a device reservation with no count or `count: all`, `gpus: all`, `runtime: nvidia` or `amd` with the "
    "image's NVIDIA_/AMD_VISIBLE_DEVICES, `devices:` /dev/dri or a CDI name's =all, or a GPU request beside another "
    "or `devices:` that may give other GPUs: the host's), and llama.cpp splits the "
    "layers over every GPU it sees (--split-mode layer, its default): how many is not known, and the pool per device "
    "depends on it; capacity checks skip these roles")
RESERVE = """    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
{more}              capabilities: [gpu]
"""

NIC = RESERVE.format(more="").replace("driver: nvidia\n              capabilities: [gpu]", "driver: cdi\n"
                                     "              capabilities: [net]\n              device_ids: [vendor.com/nic=0]")


def _findings(gpus: str):
    report = lint_text(SERVICE.format(gpus=gpus), "compose.yaml", L4)
    return [(f.rule, f.line, f.column) for f in report.findings], report


@pytest.mark.parametrize("gpus", [
    "    runtime: nvidia\n",
    "    runtime: nvidia\n    environment:\n      NVIDIA_VISIBLE_DEVICES: all\n",
    "    runtime: nvidia\n    environment:\n      - NVIDIA_VISIBLE_DEVICES\n",  # the shell's: not known
    "    devices:\n      - /dev/kfd\n      - /dev/dri\n",
    "    devices:\n      - /dev/dri:/dev/dri\n",
    "    devices:\n      - nvidia.com/gpu=all\n",
    "    gpus: all\n",
    RESERVE.format(more=""),  # no count, no device_ids: compose-go reads `count: all`
    RESERVE.format(more="              count: all\n"),
    RESERVE.format(more="              count: ${GPUS}\n"),
    "    runtime: amd\n",  # AMD's runtime: the image's AMD_VISIBLE_DEVICES (was no GPU: one)
    "    runtime: amd\n    environment:\n      - AMD_VISIBLE_DEVICES=all\n",
    # a reservation beside a second way: Compose makes one device request of each (reservations, then `gpus:`),
    # the runtime hook reads the last NVIDIA_VISIBLE_DEVICES, CDI injection adds them all (compose_gpus.py); a
    # device node beside a request adds to it
    "    gpus: all\n" + RESERVE.format(more="              count: 1\n"),  # was 1 GPU
    "    gpus:\n      - count: 1\n" + RESERVE.format(more="              count: 2\n"),  # hook: 1, CDI: 2
    "    devices:\n      - /dev/kfd\n      - /dev/dri\n" + RESERVE.format(more="              count: 1\n"),
    RESERVE.format(more="              count: 1\n") + "            - device_ids: ['3']\n"
    "              capabilities: [gpu]\n",  # two reservations: GPU 3 beside GPU 0 (CDI), or GPU 3 alone
    RESERVE.format(more="").replace("driver: nvidia\n              capabilities: [gpu]",
                                    "capabilities: [compute, utility]"),  # NVIDIA's, no count: all
    # the `nvidia` driver's two ways, registered by the daemon under their own names: no count, every GPU (was 1)
    RESERVE.format(more="").replace("driver: nvidia", "driver: nvidia.cdi"),
    RESERVE.format(more="").replace("driver: nvidia", "driver: nvidia.runtime-hook"),
    # `runtime: amd` beside a request: AMD's CDI spec sets no AMD_VISIBLE_DEVICES (ROCm/container-toolkit@192fe8e9
    # internal/cdi/cdi.go), so where the daemon injects the request by CDI, AMD's runtime adds the container's `all`
    # (or the image's) to it; only the hook's way makes the variable the request's (was 2 GPUs)
    "    runtime: amd\n    environment:\n      - AMD_VISIBLE_DEVICES=all\n"
    + RESERVE.format(more="              count: 2\n").replace("driver: nvidia", "driver: amd"),
    "    runtime: amd\n" + RESERVE.format(more="              count: 2\n").replace("driver: nvidia", "driver: amd"),
    "    runtime: amd\n    environment:\n      - AMD_VISIBLE_DEVICES=2,3\n"
    + RESERVE.format(more="              count: 2\n").replace("driver: nvidia", "driver: amd"),  # 0,1 or 0-3
    RESERVE.format(more="").replace("driver: nvidia\n              capabilities: [gpu]",
                                    "driver: cdi\n              device_ids: [nvidia.com/gpu=all]"),  # CDI: every GPU
    "    gpus: all\n" + RESERVE.format(more="").replace(
        "driver: nvidia\n              capabilities: [gpu]",
        "driver: cdi\n              device_ids: [nvidia.com/gpu=0]"),  # CDI names beside ids: overlap not known
])
def test_gpus_no_count_states_are_not_one(gpus):
    _, report = _findings(gpus)
    assert [(f.rule, f.message) for f in report.findings] == [("CTX208", COMPOSE_GPUS_WHY)]


@pytest.mark.parametrize("gpus", [
    "    runtime: nvidia\n    environment:\n      - NVIDIA_VISIBLE_DEVICES=0,1\n",
    "    devices:\n      - /dev/kfd\n      - /dev/dri/renderD128\n      - /dev/dri/renderD136\n",
    "    devices:\n      - source: /dev/dri/renderD128\n        target: /dev/dri/renderD128\n"
    "      - source: /dev/dri/renderD129\n        target: /dev/dri/renderD129\n",
    RESERVE.format(more="              count: 2\n"),
    "    runtime: amd\n    environment:\n      - AMD_VISIBLE_DEVICES=0,1\n",
    "    gpus:\n      - count: 2\n" + RESERVE.format(more="              count: 1\n"),  # hook: 2, CDI: 0,1 ∪ 0
    "    runtime: nvidia\n    environment:\n      - NVIDIA_VISIBLE_DEVICES=0,1\n"
    + RESERVE.format(more="              count: 2\n"),  # the request's GPUs either way
    RESERVE.format(more="              count: 2\n").replace("driver: nvidia\n              count", "count")
    .replace("[gpu]", "[compute, utility]"),  # capabilities the NVIDIA driver answers: its GPUs
    RESERVE.format(more="              count: 2\n").replace("driver: nvidia", "driver: nvidia.cdi"),
    "    runtime: amd\n    environment:\n      - AMD_VISIBLE_DEVICES=0,1\n"
    + RESERVE.format(more="              count: 2\n").replace("driver: nvidia", "driver: amd"),  # 0,1 either way
    # a `driver: cdi` reservation of another vendor's device is no GPU request: the runtime's ids, the device nodes
    # still count (was 0 GPUs, a false CTX204, beside `runtime: nvidia`; not counted beside the render nodes)
    "    runtime: nvidia\n    environment:\n      - NVIDIA_VISIBLE_DEVICES=0,1\n" + NIC,
    "    devices:\n      - /dev/kfd\n      - /dev/dri/renderD128\n      - /dev/dri/renderD129\n" + NIC,
    RESERVE.format(more="").replace("driver: nvidia\n              capabilities: [gpu]",
                                    "driver: cdi\n              device_ids: [nvidia.com/gpu=0, nvidia.com/gpu=1]"),
])
def test_two_gpus_the_file_states_hold_what_one_could_not(gpus):
    assert _findings(gpus)[0] == []  # a pipeline of 2 L4s


def test_a_privileged_service_with_a_count_sees_every_gpu():
    """`privileged: true` gives the container every device node of the host, beside the one GPU it reserves."""
    _, report = _findings("    privileged: true\n" + RESERVE.format(more="              count: 1\n"))
    assert [f.rule for f in report.findings] == ["CTX208"]
    assert "the container is privileged, so it sees every GPU" in report.findings[0].message


@pytest.mark.parametrize("gpus", [
    "",
    "    runtime: nvidia\n    environment:\n      NVIDIA_VISIBLE_DEVICES: \"0\"\n",
    "    devices:\n      - /dev/kfd\n      - /dev/dri/renderD128\n",
    RESERVE.format(more="              count: 1\n"),
    "    runtime: nvidia\n    environment:\n      - NVIDIA_VISIBLE_DEVICES=0\n"
    + RESERVE.format(more="              count: 1\n"),  # GPU 0 either way
    # beside a request the runtime's variable is the request's: the hook reads the one the daemon appends last,
    # and NVIDIA's CDI spec sets it to `void` in place of the container's (or the image's) own: no GPU more
    "    runtime: nvidia\n    environment:\n      - NVIDIA_VISIBLE_DEVICES=all\n"
    + RESERVE.format(more="              count: 1\n"),
    "    runtime: nvidia\n" + RESERVE.format(more="              count: 1\n"),
    RESERVE.format(more="              count: 1\n") + "            - capabilities: [tpu]\n",  # no GPU driver's
])
def test_one_gpu_keeps_the_finding(gpus):
    assert [rule for rule, _, _ in _findings(gpus)[0]] == ["CTX209"]


def test_a_privileged_service_sees_every_gpu():
    _, report = _findings("    privileged: true\n" + RESERVE.format(more="              count: 1\n"))
    assert [f.rule for f in report.findings] == ["CTX208"]
    assert "the container is privileged" in report.findings[0].message


def test_the_counted_gpus_are_placed_where_the_file_states_them():
    nodes = "    devices:\n      - /dev/kfd\n      - /dev/dri/renderD128\n      - /dev/dri/renderD129\n"
    text = SERVICE.format(gpus=nodes).replace("ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
                                              "vllm/vllm-openai:v0.8.5").replace(
        "-m /models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf -c 131072 -ngl 99 --port 8080",
        "--model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192")
    (f,) = lint_text(text, "compose.yaml", L4).findings
    assert (f.rule, f.line, f.column) == ("CTX205", 6, 9)
    assert f.message.startswith("2 > 1: the unified replica has 2 L4 accelerators but its engine uses tensor x "
                                "pipeline x data = 1")
