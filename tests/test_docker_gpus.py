"""`docker run --gpus VALUE` read as Docker reads it (lint/engines/docker_run.py requested_gpus; docker/cli
opts/gpus.go, moby daemon/nvidia_linux.go): a stated count, or a quoted device list, is the GPUs the engine in the
container sees. A llama.cpp server started so split its layers over them, and got a false CTX209 (every layer and
all -c cells on one GPU) before. The script is modelled on ggml-org/llama.cpp docs/docker.md's
`docker run --gpus all -v /path/to/models:/models ghcr.io/ggml-org/llama.cpp:server-cuda -m ... -ngl 99`."""
from __future__ import annotations

import pytest

from ctxlint.engine import Settings, lint_text
from ctxlint.engines.tokens import typed

SCRIPT = """#!/bin/bash
docker run {gpus}-p 8080:8080 -v /models:/models ghcr.io/ggml-org/llama.cpp:server-cuda-b6000 \\
  -m /models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf -c {ctx} -ngl 99 --host 0.0.0.0 --port 8080
"""
L4 = Settings(default_accelerators=(("**", "L4"),))


def _findings(gpus: str, ctx: int = 131072):
    report = lint_text(SCRIPT.format(gpus=gpus, ctx=ctx), "serve.sh", L4)
    return [(f.rule, f.line, f.column) for f in report.findings]


@pytest.mark.parametrize("gpus", ["--gpus 2 ", "--gpus=2 ", "--gpus count=2 ", "--gpus '\"device=0,1\"' ",
                                  "--gpus '\"device=GPU-a,GPU-b\",capabilities=compute' "])
def test_two_gpus_docker_gives_the_container_hold_what_one_could_not(gpus):
    assert _findings(gpus) == []  # was CTX209 at the -c value: 16 GiB of cells on one L4


@pytest.mark.parametrize("gpus", ["", "--gpus 1 ", "--gpus device=0 ", "--gpus all -e CUDA_VISIBLE_DEVICES=0 ",
                                  "--privileged -e CUDA_VISIBLE_DEVICES=0 --gpus all "])
def test_one_gpu_keeps_the_finding(gpus):
    # no GPU statement at all is one GPU, as is a CUDA_VISIBLE_DEVICES of one id
    assert _findings(gpus) == [("CTX209", 3, 54)]


DOCKER_GPUS_WHY = (
    "KV pool of unified not declared and not derivable: the device is stated (L4) but the docker run line gives its "
    "container GPUs it does not count (--gpus all, a count not known, --runtime nvidia or amd with the image's "
    "NVIDIA_/AMD_VISIBLE_DEVICES, --device /dev/dri or a CDI name's =all, or --privileged or a GPU device beside --gpus: "
    "the host's), and llama.cpp splits the layers over every GPU it sees (--split-mode layer, its default): how many "
    "is not known, and the pool per device depends on it; capacity checks skip these roles")


@pytest.mark.parametrize("gpus", ["--gpus all ", "--gpus $N ", "--gpus count=all ", "--gpus -1 ",
                                  "--gpus '\"device=all\"' ", "--privileged --gpus 1 ", "--gpus 1 --gpus 1 ",
                                  "--gpus 1 -e NVIDIA_VISIBLE_DEVICES=all ", "--gpus all -e CUDA_VISIBLE_DEVICES=$D "])
def test_gpus_docker_does_not_count_are_not_one(gpus):
    # `all` (or a count not known, or every GPU beside the request) is the host's GPUs, neither two nor one: llama.cpp
    # splits its layers over all of them, so what one GPU holds is not known (was a false CTX209 at -c: 16 GiB of
    # cells on one L4); CTX208 says why, as for a privileged pod (tests/adapters/test_privileged_gpus.py)
    report = lint_text(SCRIPT.format(gpus=gpus, ctx=131072), "serve.sh", L4)
    assert [(f.rule, f.message) for f in report.findings] == [("CTX208", DOCKER_GPUS_WHY)]
    from ctxlint.audit import build_audit

    (row,) = build_audit(report).rows
    assert row.verdict == "unknown"


@pytest.mark.parametrize("runner", ["podman", "nerdctl", "/usr/bin/podman"])
@pytest.mark.parametrize("gpus", ["--gpus all ", "--gpus 2 ", "--gpus=1 "])
def test_podman_and_nerdctl_gpus_are_uncounted_never_one(runner, gpus):
    # their `--gpus` is not Docker's reading here: GPUs given, not counted (was no GPU statement, one GPU: a false
    # CTX209 at -c, 16 GiB of cells on one L4)
    text = SCRIPT.format(gpus=gpus, ctx=131072).replace("docker run", f"{runner} run")
    report = lint_text(text, "serve.sh", L4)
    assert [(f.rule, f.message) for f in report.findings] == [("CTX208", DOCKER_GPUS_WHY)]
    # no `--gpus` at all stays one GPU, and one after the image is the engine's word
    text = SCRIPT.format(gpus="", ctx=131072).replace("docker run", f"{runner} run")
    assert [f.rule for f in lint_text(text, "serve.sh", L4).findings] == ["CTX209"]


def test_gpus_docker_does_not_count_with_what_the_engine_uses_stated():
    assert _findings("--gpus all -e CUDA_VISIBLE_DEVICES=0,1 ") == []  # a pipeline of the two it sees
    # --tensor-split's shares name the GPUs it uses among the host's: equal ones a pipeline of that many, as where no
    # count is stated; unequal ones are not counted, and CTX208 says that
    text = SCRIPT.format(gpus="--gpus all ", ctx=131072).replace("-ngl 99", "-ngl 99 -ts 1,1")
    assert lint_text(text, "serve.sh", L4).findings == []
    report = lint_text(text.replace("-ts 1,1", "-ts 1,2"), "serve.sh", L4)
    assert [f.rule for f in report.findings] == ["CTX208"] and "--tensor-split spreads" in report.findings[0].message
    # a count with fewer ids: the one GPU it sees (was a pipeline of 2, a false CTX204 and no CTX209)
    assert _findings("--gpus 2 -e CUDA_VISIBLE_DEVICES=0 ") == [("CTX209", 3, 54)]
    # --split-mode none keeps every layer on one GPU, however many it sees
    text = SCRIPT.format(gpus="--gpus all ", ctx=131072).replace("-ngl 99", "-ngl 99 -sm none")
    assert [(f.rule, f.line) for f in lint_text(text, "serve.sh", L4).findings] == [("CTX209", 3)]
    # in the container's own `sh -c` script, as for its engine line
    text = ("#!/bin/bash\ndocker run --gpus all ghcr.io/ggml-org/llama.cpp:full-cuda-b6000 sh -c "
            "'llama-server -m /models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf -c 131072 -ngl 99'\n")
    assert [(f.rule, f.message) for f in lint_text(text, "serve.sh", L4).findings] == [("CTX208", DOCKER_GPUS_WHY)]


def test_a_value_docker_refuses_is_ctx002_at_the_value():
    # `device=0,1` unquoted is the CSV fields `device=0` and `1` (a count): the daemon refuses a count beside
    # devices ("cannot set both Count and DeviceIDs on device request", moby daemon/nvidia_linux.go), so the
    # container never starts; before, the count was only unknown (the CTX209 stays: the capacity as read)
    report = lint_text(SCRIPT.format(gpus="--gpus device=0,1 ", ctx=131072), "serve.sh", L4)
    assert [(f.rule, f.line, f.column, f.message) for f in report.findings if f.rule == "CTX002"] == [
        ("CTX002", 2, 19, "docker run --gpus device=0,1: Docker refuses it (cannot set both Count and DeviceIDs on "
                          "device request), so the container never starts; quote the device list as one CSV field: "
                          "--gpus '\"device=0,1\"'")]
    assert [f.rule for f in report.findings] == ["CTX002", "CTX209"]
    # the CLI's own refusals (docker/cli opts/gpus.go GpuOpts.Set), as it words them
    for gpus, why in (("--gpus=count=2,foo=1 ", "unexpected key 'foo' in 'foo=1'"),
                      ("--gpus 2,count=3 ", "gpu request key 'count' can be specified only once"),
                      ("--gpus capabilities=compute,utility ",
                       'invalid count (utility): value must be either "all" or an integer')):
        report = lint_text(SCRIPT.format(gpus=gpus, ctx=131072), "serve.sh", L4)
        assert [f.message.split("(", 1)[1].rsplit("), so", 1)[0] for f in report.findings if f.rule == "CTX002"] \
            == [why], gpus
    # podman reads its own `--gpus`: not said
    text = SCRIPT.format(gpus="--gpus device=0,1 ", ctx=131072).replace("docker run", "podman run")
    assert not [f for f in lint_text(text, "serve.sh", L4).findings if f.rule == "CTX002"]


def _count(words: str):
    from ctxlint.engines.docker_run import requested_gpus

    req = requested_gpus([typed(w) for w in words.split(" ")])
    return None if req is None or req.refused or req.uncounted else (req.count, req.span)


@pytest.mark.parametrize("words, expected", [
    ("docker run --gpus 4 IMAGE", (4, (0, 1))),
    ("docker run --gpus=4 IMAGE", (4, (7, 8))),
    ("docker run -d --gpus count=+3 IMAGE", (3, (0, 8))),
    ('docker run --gpus "device=0,2,3" IMAGE', (3, (0, 14))),
    ("docker run --gpus capabilities=utility IMAGE", (1, (0, 20))),  # neither count nor devices: Docker's 1
    ("docker run --gpus all IMAGE", None),
    ("docker run --gpus count=all IMAGE", None),
    ("docker run --gpus 0 IMAGE", None),  # NVIDIA_VISIBLE_DEVICES=void: no GPU, no count
    ("docker run --gpus 2,count=3 IMAGE", None),  # a bare count is `count`: given twice, refused
    ("docker run --gpus capabilities=compute,utility IMAGE", None),  # `utility` taken for a count: refused
    ("docker run --gpus driver=nvidia,foo=1 IMAGE", None),  # an unknown key: refused
    ("docker run --gpus 1 --gpus 1 IMAGE", None),  # two requests: not summed
    ("docker run IMAGE --gpus 2", None),  # the image's argument, not Docker's
    ("podman run --gpus 2 IMAGE", None),  # podman's own reading: uncounted (test above)
    # the daemon's NVIDIA_VISIBLE_DEVICES=all (every GPU), or a device named twice: not a count of the IDs
    ("docker run --gpus device=all IMAGE", None),
    ('docker run --gpus "device=0,0" IMAGE', None),
    # the CDI driver (moby daemon/devices.go handleDevice): `nvidia.com/gpu=all` is every GPU, not one
    ('docker run --gpus "driver=cdi,device=nvidia.com/gpu=all" IMAGE', None),
    ("docker run --gpus driver=nvidia,count=2 IMAGE", (2, (0, 21))),
    # GPUs the container gets besides its request: --privileged (every device node), a GPU --device, its own
    # NVIDIA_VISIBLE_DEVICES beside the daemon's
    ("docker run --privileged --gpus 2 IMAGE", None),
    ("docker run --gpus 2 --privileged=true IMAGE", None),
    ("docker run --gpus 2 --device nvidia.com/gpu=all IMAGE", None),
    ("docker run --gpus 2 --device=/dev/nvidia3 IMAGE", None),
    ("docker run --gpus 2 -e NVIDIA_VISIBLE_DEVICES=all IMAGE", None),
    ("docker run -iteNVIDIA_VISIBLE_DEVICES=all --gpus 2 IMAGE", None),
    ("docker run --env=NVIDIA_VISIBLE_DEVICES --gpus 2 IMAGE", None),
    ("docker run --privileged=false --gpus 2 -e CUDA_VISIBLE_DEVICES=0 --device /dev/fuse IMAGE", (2, (0, 1))),
    # an option's value spelled like an option (a label `-e`) is no `-e`: the --privileged after it is Docker's
    ("docker run --gpus 2 --label -e --privileged IMAGE", None),
    ("docker run --gpus 2 -v -e -e NVIDIA_VISIBLE_DEVICES=all IMAGE", None),
])
def test_requested_gpus(words, expected):
    assert _count(words) == expected


@pytest.mark.parametrize("words, uncounted", [
    ("docker run --gpus all IMAGE", "--gpus all"),
    ("docker run --gpus=count=all IMAGE", "--gpus count=all"),
    ("docker run --gpus 1 --gpus 1 IMAGE", "2 --gpus options"),
    ("docker run --privileged --gpus 2 IMAGE", "--privileged --gpus 2"),
    ("docker run --gpus 2 -e NVIDIA_VISIBLE_DEVICES=all IMAGE", "-e NVIDIA_VISIBLE_DEVICES=all --gpus 2"),
    ('docker run --gpus "driver=cdi,device=nvidia.com/gpu=all" IMAGE', '--gpus "driver=cdi,device=nvidia.com/gpu=all"'),
    # no GPU at all (NVIDIA_VISIBLE_DEVICES=void, none), no `--gpus`, or one past the image: nothing uncounted
    ("docker run --gpus 0 IMAGE", None),
    ("docker run --gpus count=+0 IMAGE", None),
    ("docker run --gpus device=none IMAGE", None),
    ("docker run --privileged IMAGE", None),
    ("docker run IMAGE --gpus all", None),
    ("docker run --gpus 2 IMAGE", None),
])
def test_gpus_docker_does_not_count(words, uncounted):
    from ctxlint.engines.docker_run import requested_gpus

    req = requested_gpus([typed(w) for w in words.split(" ")])
    assert (req.uncounted or None if req is not None else None) == uncounted


@pytest.mark.parametrize("words, accelerator, vendor", [
    # one walk of the options (docker_run._device_options) serves the devices asked for and those that make a
    # --gpus count not the container's: an environment or a --privileged flag asks for no accelerator itself
    ("docker run -e NVIDIA_VISIBLE_DEVICES=all --privileged IMAGE", False, None),
    ("docker run --env AMD_VISIBLE_DEVICES=0 --device=/dev/kfd IMAGE", True, "amd"),
    ("docker run -it --runtime habana -e HABANA_VISIBLE_DEVICES=all IMAGE", False, "gaudi"),
    ("docker run --name gpu --device nvidia.com/gpu=all IMAGE", True, None),
    # every option's value is stepped over as parse_run steps over it, not only those of the options read here
    ("docker run --label -e --device /dev/kfd IMAGE", True, "amd"),
    ("docker run --health-cmd -de --runtime=habana IMAGE", False, "gaudi"),
    ("docker run -e --gpus=all IMAGE", False, None),  # the variable `--gpus=all` (pflag takes the next word)
])
def test_the_options_asking_for_devices(words, accelerator, vendor):
    from ctxlint.engines.docker_run import requested_vendor, requests_accelerator

    assert (requests_accelerator(words.split()), requested_vendor(words.split())) == (accelerator, vendor)


SHELL_IN_CONTAINER = """#!/bin/bash
docker run {gpus} -v /models:/models --entrypoint /bin/sh ghcr.io/ggml-org/llama.cpp:server-cuda-b6000 \\
  -c "/app/llama-server -m /models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf -c 131072 -ngl 99 --port 8080"
"""


@pytest.mark.parametrize("gpus, expected", [("--gpus 2", []), ("--gpus 1", [("CTX209", 3, 76)])])
def test_the_container_s_shell_runs_the_server_on_the_gpus_docker_gives(gpus, expected):
    report = lint_text(SHELL_IN_CONTAINER.format(gpus=gpus), "serve.sh", L4)
    assert [(f.rule, f.line, f.column) for f in report.findings] == expected


VLLM = """#!/bin/bash
docker run --runtime nvidia --gpus 4 -p 8000:8000 vllm/vllm-openai:v0.8.5 \\
  --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size {tp} --max-model-len 8192
"""


def test_the_count_is_placed_at_the_gpus_value():
    (f,) = lint_text(VLLM.format(tp=2), "serve.sh", L4).findings
    assert (f.rule, f.line, f.column, f.end_column) == ("CTX205", 2, 36, 37)
    assert f.message.startswith("4 > 2: the unified replica has 4 L4 accelerators but its engine uses tensor x "
                                "pipeline x data = 2; 2 sit idle")


def test_more_ranks_than_the_gpus_docker_gives_are_an_error():
    (f,) = lint_text(VLLM.format(tp=8), "serve.sh", L4).findings
    assert (f.rule, f.line, f.column) == ("CTX204", 3, 67)
    assert f.message == ("8 > 4: the unified engine needs tensor x pipeline x data = 8 GPUs but a replica has 4 "
                         "(docker run --gpus 4). Lower the parallel sizes or raise the accelerator count")


def test_a_privileged_container_sees_every_gpu_so_no_count_is_read():
    # NVIDIA/nvidia-docker#764: `--privileged` lets the container open every GPU whatever its request
    script = VLLM.format(tp=8).replace("--runtime nvidia", "--runtime nvidia --privileged")
    assert lint_text(script, "serve.sh", L4).findings == []


@pytest.mark.parametrize("value, refused", [
    # the daemon refuses a count beside devices only when it is not 0 (moby daemon/nvidia_linux.go: `req.Count != 0
    # && len(req.DeviceIDs) > 0`), and the last count read is the request's (docker/cli opts/gpus.go sets req.Count
    # at each): `device=1,0` is GPU 1, started (before: a false CTX002)
    ("device=1,0", False), ("device=1,+0", False), ("device=1,2,0", False),
    ("device=1,2", True), ("device=1,all", True), ("device=1,0,2", True),
])
def test_a_count_of_0_beside_devices_is_no_conflict(value, refused):
    from ctxlint.engines.gpu_values import csv_refusal

    assert bool(csv_refusal(value)) is refused
    if not refused:
        assert _count(f"docker run --gpus {value} IMAGE")[0] == 1


# No `--gpus`: the NVIDIA runtime exposes what the container's NVIDIA_VISIBLE_DEVICES lists, the image's own ENV when
# the line sets none (CUDA images: all; nvidia-container-toolkit internal/config/image/cuda_image.go
# devicesFromEnvvars), and ROCm's /dev/dri is every GPU's render node (rocm.docs.amd.com deploy/docker.html). One GPU
# read there put all of llama.cpp's layers and -c cells on one (a false CTX209 at -c before).
@pytest.mark.parametrize("gpus", ["--runtime nvidia ", "--runtime=nvidia ",
                                  "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=all ",
                                  "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=$GPUS ",
                                  "--device /dev/kfd --device /dev/dri ", "--device=/dev/dri:/dev/dri ",
                                  "--device nvidia.com/gpu=all ", "--privileged --device /dev/dri/renderD128 ",
                                  "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0 --device /dev/dri/renderD128 ",
                                  # `-e NAME` with no `=`: the docker client's value, or the image's when it has none
                                  # (was read as an empty value, no GPU: one GPU and a false CTX209)
                                  "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES ",
                                  "--runtime nvidia --env=NVIDIA_VISIBLE_DEVICES ",
                                  # AMD's runtime adds what AMD_VISIBLE_DEVICES lists (ROCm/container-toolkit
                                  # internal/oci/oci.go): unset here, the image's; `all` every GPU (was no GPU: one)
                                  "--runtime amd ", "--runtime=amd -e AMD_VISIBLE_DEVICES=all ",
                                  "--runtime nvidia -e AMD_VISIBLE_DEVICES=0,1 "])
def test_gpus_a_runtime_or_device_gives_uncounted_are_not_one(gpus):
    report = lint_text(SCRIPT.format(gpus=gpus, ctx=131072), "serve.sh", L4)
    assert [(f.rule, f.message) for f in report.findings] == [("CTX208", DOCKER_GPUS_WHY)]


@pytest.mark.parametrize("gpus", ["--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,1 ",
                                  "--runtime nvidia --env=NVIDIA_VISIBLE_DEVICES=GPU-a,GPU-b ",
                                  "--device /dev/kfd --device /dev/dri/renderD128 --device /dev/dri/renderD136 ",
                                  "--device nvidia.com/gpu=0 --device nvidia.com/gpu=1 ",
                                  "--runtime amd -e AMD_VISIBLE_DEVICES=0,1 ", "--runtime=amd -e AMD_VISIBLE_DEVICES=2-3 "])
def test_two_gpus_a_runtime_or_device_names_are_counted(gpus):
    assert _findings(gpus) == []  # a pipeline of 2: each L4 holds half (was CTX209 on one)


@pytest.mark.parametrize("gpus", ["--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0 ", "--device /dev/kfd ",
                                  "--device /dev/kfd --device /dev/dri/renderD128:/dev/dri/renderD128 ",
                                  "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=void "])
def test_one_gpu_a_runtime_or_device_names_keeps_the_finding(gpus):
    assert _findings(gpus) == [("CTX209", 3, 54)]


@pytest.mark.parametrize("words, count, written, uncounted", [
    ("docker run --runtime nvidia IMAGE", None, "", "--runtime nvidia (NVIDIA_VISIBLE_DEVICES the image's)"),
    ("docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,1,1 IMAGE", None, "",
     "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0,1,1"),
    ("docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES IMAGE", None, "",
     "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES (the docker client's, or the image's)"),
    ("docker run --runtime amd -e AMD_VISIBLE_DEVICES=0,1,1 IMAGE", None, "",
     "--runtime amd -e AMD_VISIBLE_DEVICES=0,1,1"),
    ("docker run --runtime amd -e AMD_VISIBLE_DEVICES=0-3 IMAGE", 4, "--runtime amd -e AMD_VISIBLE_DEVICES=0-3", ""),
    ("docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=2,3 IMAGE", 2, "--runtime nvidia -e "
     "NVIDIA_VISIBLE_DEVICES=2,3", ""),
    ("podman run --device /dev/dri/renderD128 --device /dev/dri/renderD129 --device /dev/dri/renderD128 IMAGE", 2,
     "--device /dev/dri/renderD128 --device /dev/dri/renderD129", ""),
    ("docker run --device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm IMAGE", 1,
     "--device /dev/nvidia0", ""),
    ("docker run --device /dev/dri/card0 IMAGE", None, "", "--device /dev/dri/card0"),
    # no GPU: /dev/kfd alone, a runtime that is not NVIDIA's, an option past the image
    ("docker run --device /dev/kfd IMAGE", "none", "", ""),
    ("docker run --runtime runc IMAGE", "none", "", ""),
    ("docker run IMAGE --runtime nvidia", "none", "", ""),
])
def test_device_gpus(words, count, written, uncounted):
    from ctxlint.engines.docker_run import requested_gpus

    req = requested_gpus([typed(w) for w in words.split(" ")])
    if count == "none":
        assert req is None
    else:
        assert (req.count, req.written, req.uncounted) == (count, written, uncounted)


def test_a_counted_runtime_is_placed_at_its_variable():
    script = VLLM.format(tp=2).replace("--gpus 4", "-e NVIDIA_VISIBLE_DEVICES=0,1,2,3")
    (f,) = lint_text(script, "serve.sh", L4).findings
    assert (f.rule, f.line, f.column) == ("CTX205", 2, 32)
    assert f.message.startswith("4 > 2: the unified replica has 4 L4 accelerators")
