"""`docker run IMAGE ...` in a shell script is a container as a Kubernetes one is: the same image rules apply.

A CPU build with no accelerator asked for runs the engine on host memory (CTX208 says so, not "needs N GiB per
GPU"); vLLM's documented local CPU tag (`vllm-cpu-env`) starts the server; an engine's image whose entrypoint
ctxlint does not know is CTX008 at the image, as in a pod (sweeps 36-37).
"""
from __future__ import annotations

import json

import pytest

from helpers import run

MODEL = "--model Qwen/Qwen3-8B --max-model-len 8192"
# a release whose CPU KV space with VLLM_CPU_KVCACHE_SPACE unset is the host's (engines/vllm_cpu_space.py)
CPU_IMAGE = "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.13.0"
ON_CPU = "the engine runs on the CPU ({} is a CPU build and no accelerator is requested)"
POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: e}}
spec:
  template:
    spec:
      containers:
      - name: e
        image: {image}
        args: [--model, Qwen/Qwen3-8B, --max-model-len, '8192']
{extra}"""


def _check(tmp_path, name: str, text: str, *args: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return run(["check", "--isolated", str(path), *args]).out


@pytest.mark.parametrize("image", [CPU_IMAGE, "vllm/vllm-openai-cpu:v0.14.1", "vllm-cpu-env"])
def test_a_cpu_build_run_without_gpus_is_told_its_kv_cache_is_host_memory(tmp_path, image):
    # sweep 37: the script said "needs >= 4.7 GiB per GPU ... (L4 yes, A10G yes ...)" where the same image in a
    # Deployment said the engine runs on the CPU
    script = f"#!/bin/bash\ndocker run --rm -p 8000:8000 {image} {MODEL}\n"
    out = _check(tmp_path, "cpu.sh", script, "--select", "CTX208")
    assert f"cpu.sh:2:30: CTX208 [info] KV pool of unified not declared and not derivable: {ON_CPU.format(image)}" \
        in out and "L4" not in out, out
    pod = _check(tmp_path, "cpu.yaml", POD.format(image=image, extra=""), "--select", "CTX208")
    assert ON_CPU.format(image) in pod, pod
    row = json.loads(run(["audit", str(tmp_path / "cpu.sh"), "--format", "json"]).out)["deployments"][0]
    assert row["why_unknown"] == "CPU engine: KV memory not stated"


@pytest.mark.parametrize("image", ["public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.9.0",
                                   "vllm/vllm-openai-cpu:v0.10.1", "vllm/vllm-openai-cpu:v0.12.0"])
def test_an_unset_cpu_kv_space_is_4_gib_up_to_0_12(tmp_path, image):
    # vLLM up to 0.12.0 takes 4 GiB when VLLM_CPU_KVCACHE_SPACE is unset ("... is not set, using 4 by default";
    # vllm#29604 sizes it from the host after): the pool is derived from it, at the image, as from a stated 4
    script = f"#!/bin/bash\ndocker run --rm -p 8000:8000 {image} --model Qwen/Qwen3-8B --max-model-len 40960\n"
    out = _check(tmp_path, "cpu.sh", script)
    column = script.index("40960") - len("#!/bin/bash\n") + 1  # at the context length, which the pool cannot hold
    assert f"cpu.sh:2:{column}: CTX201 [error] 40,960 > 28,928: the unified engine context length 40,960 exceeds " \
           "its KV pool 29,056" in out, out
    assert f"KV budget per GPU 4.00 GiB (VLLM_CPU_KVCACHE_SPACE unset: vLLM {image.rsplit(':v', 1)[1]}'s default 4 " \
           "GiB) / 147,456 B per token per GPU = 29,056 tokens" in out, out
    [row] = json.loads(run(["audit", str(tmp_path / "cpu.sh"), "--format", "json"]).out)["deployments"]
    assert (row["prefill_pool"]["origin"], row["why_unknown"]) == ("derived", None)
    stated = script.replace("--rm", "--rm -e VLLM_CPU_KVCACHE_SPACE=4")
    assert _check(tmp_path, "set.sh", stated).count("CTX201") == 1  # the same pool as the stated 4
    for value, why in (("4.5", "VLLM_CPU_KVCACHE_SPACE=4.5 is no integer vLLM's int() reads"),
                       ("$SPACE", "VLLM_CPU_KVCACHE_SPACE is set to a value not known here"),
                       # int() reads -1; the CPU platform refuses it (was "no integer vLLM's int() reads")
                       ("-1", "VLLM_CPU_KVCACHE_SPACE=-1 is below 0, which vLLM refuses at start")):
        # set, to a value vLLM refuses or one not known: no default, and CTX208 says why
        out = _check(tmp_path, "bad.sh", script.replace("--rm", f"--rm -e VLLM_CPU_KVCACHE_SPACE={value}"))
        assert "CTX201" not in out and why in out, out


UNSEEN = "VLLM_CPU_KVCACHE_SPACE is set to a value not known here, or may be (by an envFrom, an env_file or an " \
    "--env-file ctxlint does not read)"


def test_an_environment_source_not_read_may_set_the_cpu_kv_space(tmp_path):
    # a Secret or ConfigMap `envFrom`, an `env_file:` not beside the compose file and `docker run --env-file` may set
    # VLLM_CPU_KVCACHE_SPACE (to 40, say): its release's 4 GiB for an unset one is then a guess, no pool (it was a
    # CTX201 at --max-model-len, computed on 4 GiB)
    image = "vllm/vllm-openai-cpu:v0.12.0"
    pod = POD.format(image=image, extra="        envFrom: [{secretRef: {name: cpu-env}}]\n").replace("'8192'", "'40960'")
    script = f"#!/bin/bash\ndocker run --rm --env-file cpu.env {image} --model Qwen/Qwen3-8B --max-model-len 40960\n"
    compose = (f"services:\n  v:\n    image: {image}\n    env_file: cpu.env\n"
               "    command: --model Qwen/Qwen3-8B --max-model-len 40960\n")
    for name, text in (("pod.yaml", pod), ("cpu.sh", script), ("compose.yaml", compose)):
        out = _check(tmp_path, name, text)
        assert "CTX201" not in out and UNSEEN in out, (name, out)
    # an env_file that is there, and that does not set it: the release's 4 GiB, as with none
    (tmp_path / "cpu.env").write_text("OMP_NUM_THREADS=8\n")
    assert "CTX201" in _check(tmp_path, "compose.yaml", compose)


@pytest.mark.parametrize("image, why", [
    ("vllm/vllm-openai-cpu:v0.13.0", "vLLM 0.13.0 is after 0.12.0, the last release known to use a fixed 4 GiB when "
                                     "VLLM_CPU_KVCACHE_SPACE is unset: vllm-project/vllm#29604 sizes it from the "
                                     "host's free memory instead"),
    ("vllm/vllm-openai-cpu:latest", "the vLLM release is not known, and an unset VLLM_CPU_KVCACHE_SPACE is 4 GiB up "
                                    "to 0.12.0 but sized from the host's free memory after (vllm-project/vllm#29604)"),
])
def test_an_unset_cpu_kv_space_after_0_12_or_of_a_release_not_known_is_not_known(tmp_path, image, why):
    out = _check(tmp_path, "cpu.sh", f"#!/bin/bash\ndocker run --rm {image} {MODEL}\n", "--select", "CTX208")
    assert f"which ctxlint does not derive; {why}; state it (VLLM_CPU_KVCACHE_SPACE (GiB)" in out, out


@pytest.mark.parametrize("request_", ["--gpus all", "--gpus=1", "--device nvidia.com/gpu=all", "--device=/dev/kfd",
                                      "--runtime nvidia"])
def test_a_cpu_build_run_with_an_accelerator_is_checked_as_on_gpus(tmp_path, request_):
    # as a pod with a GPU limit: the image's devices are listed, and VLLM_CPU_KVCACHE_SPACE is not its pool; AMD's
    # /dev/kfd asks for AMD's devices, so only they are (physics/needs.py _vendor_devices)
    out = _check(tmp_path, "gpu.sh", f"docker run {request_} -e VLLM_CPU_KVCACHE_SPACE=4 {CPU_IMAGE} {MODEL}\n",
                 "--select", "CTX208")
    listed = "(MI210 yes," if "kfd" in request_ else "(L4 yes,"
    assert listed in out and "runs on the CPU" not in out, out
    assert ("L4" in out) is ("kfd" not in request_), out
    pod = _check(tmp_path, "gpu.yaml", POD.format(image=CPU_IMAGE, extra="        resources: {limits: "
                                                   "{nvidia.com/gpu: 1}}\n"), "--select", "CTX208")
    assert "L4 yes" in pod and "runs on the CPU" not in pod, pod


def test_vllm_cpu_kvcache_space_is_the_pool_only_of_a_cpu_builds_container(tmp_path):
    # the script's `-e VLLM_CPU_KVCACHE_SPACE=4` is the CPU build's KV memory (derived: no CTX208) ...
    assert _check(tmp_path, "a.sh", f"docker run -e VLLM_CPU_KVCACHE_SPACE=4 {CPU_IMAGE} {MODEL}\n",
                  "--select", "CTX208") == ""
    # ... and no pool of the CUDA image's, which vLLM's GPU platform never reads
    out = _check(tmp_path, "b.sh", f"docker run -e VLLM_CPU_KVCACHE_SPACE=4 vllm/vllm-openai:v0.9.0 {MODEL}\n",
                 "--select", "CTX208")
    assert "L4 yes" in out, out


def test_a_shell_in_the_container_keeps_its_run_lines_gpu_request(tmp_path):
    # `docker run [--gpus] --entrypoint /bin/bash IMAGE -c "vllm serve ..."`: the script's commands run in that image
    line = 'docker run {} --entrypoint /bin/bash {} -c "vllm serve Qwen/Qwen3-8B --max-model-len 8192"\n'
    out = _check(tmp_path, "c.sh", line.format("", CPU_IMAGE), "--select", "CTX208")
    assert ON_CPU.format(CPU_IMAGE) in out, out
    out = _check(tmp_path, "d.sh", line.format("--gpus all", CPU_IMAGE), "--select", "CTX208")
    assert "L4 yes" in out, out


def test_vllm_docs_local_cpu_tag_starts_the_server(tmp_path):
    # sweep 37 (llm_vlm_memo's run_qwen2-7b_cpu.sh): `docker run ... vllm-cpu-env --model ...`, the tag vLLM's CPU
    # install docs build, gave "0 deployments"
    path = tmp_path / "run_cpu.sh"
    path.write_text("MODEL=Qwen/Qwen3-8B\ndocker run --rm --network=host \\\n    -v cache:/root/.cache \\\n"
                    "    vllm-cpu-env \\\n    --model ${MODEL} --max-model-len 8192\n")
    result = run(["check", "--isolated", str(path)])
    assert "in 1 file, 1 deployment" in result.err
    assert f"run_cpu.sh:4:5: CTX208 [info] KV pool of unified not declared and not derivable: " \
           f"{ON_CPU.format('vllm-cpu-env')}" in result.out, result.out


UNKNOWN = ("CTX008 [info] the image myorg/vllm-custom:1.0 is vllm's but ctxlint does not know what its entrypoint "
           "runs, so --model, --max-model-len are not read as vllm flags and this container is not checked; state the "
           "command that starts it (`vllm serve ...`) (unresolved-value)")


def test_an_engines_image_of_unknown_entrypoint_is_said_in_a_script_as_in_a_pod(tmp_path):
    # sweep 37 (scratch/t.sh): a pod said CTX008, the script gave nothing at all
    out = _check(tmp_path, "t.sh", f"#!/bin/bash\ndocker run --rm --network=host myorg/vllm-custom:1.0 {MODEL}\n")
    assert out == f"{tmp_path / 't.sh'}:2:32: {UNKNOWN}\n"
    pod = _check(tmp_path, "k.yaml", POD.format(image="myorg/vllm-custom:1.0", extra=""))
    assert pod == f"{tmp_path / 'k.yaml'}:9:16: {UNKNOWN}\n"
    # a program after the image, an `--entrypoint`, or flags no check reads: nothing to say
    for line in ("docker run myorg/vllm-custom:1.0 vllm serve Qwen/Qwen3-8B --max-model-len 8192\n",
                 f"docker run --entrypoint /bin/sh myorg/vllm-custom:1.0 -c 'sleep 1' {MODEL}\n",
                 "docker run myorg/vllm-custom:1.0 --port 8000\n", f"docker run busybox {MODEL} vllm\n"):
        out = _check(tmp_path, "u.sh", line)
        assert "does not know what its entrypoint runs" not in out, (line, out)


def test_compose_follows_the_same_rule(tmp_path):
    # checked in sweep 37: a compose service already said what a pod says, with and without a GPU reservation
    service = f"services:\n  e:\n    image: {CPU_IMAGE}\n    command: {MODEL}\n"
    gpu = "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n"
    assert ON_CPU.format(CPU_IMAGE) in _check(tmp_path, "compose.yaml", service, "--select", "CTX208")
    assert "L4 yes" in _check(tmp_path, "compose.yaml", service + gpu, "--select", "CTX208")
