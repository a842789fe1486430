"""A model path that is a bind mount's target names the model by the host folder mounted there
(engines/mounted_model.py).

Modelled on HouXianzhoua/llm-inference-platform (sweep eng26): `scripts/start-tgi-qwen.sh` runs
`docker run -v $PWD/models/Qwen2-7B-Instruct-GPTQ-Int4:/data ghcr.io/huggingface/text-generation-inference
--model-id /data ...`, and its `docker-compose.yml` mounts `./models/Qwen2-7B-Instruct-GPTQ-Int4:/data` under a
service whose command is `--model-id=/data`. TGI loads the host folder, so its name is the model's, as a literal
local path's folder name is (before: model '/data', "model not resolved", no memory need). A host path whose last
segment is not typed, a named volume, or a model path below the target (which types its own folder) is left as it was."""
from __future__ import annotations

import json

import pytest

from helpers import run

from ctxlint.engines.mounted_model import host_folder, run_mounts

TGI = "ghcr.io/huggingface/text-generation-inference:2.4.0"


def rows(path) -> list:
    return json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]


def script(tmp_path, mount: str, model: str = "/data"):
    path = tmp_path / "start-tgi.sh"
    path.write_text("#!/bin/bash\n"
                    f"docker run --rm --gpus all --shm-size 1g -p 8080:80 -v {mount} {TGI} \\\n"
                    f"  --model-id {model} --max-input-length 2048 --max-total-tokens 4096\n")
    return path


def test_docker_run_volume_names_the_model(tmp_path):
    (row,) = rows(script(tmp_path, "$PWD/models/Qwen2.5-7B-Instruct:/data"))
    assert (row["model"], row["verdict"], row["why_unknown"]) == (
        "$PWD/models/Qwen2.5-7B-Instruct", "needs >= 15.9 GiB/GPU", None)
    assert row["model_from"] == ("'/data' in the file, read as $PWD/models/Qwen2.5-7B-Instruct; "
                                 "$PWD/models/Qwen2.5-7B-Instruct: architecture of Qwen/Qwen2.5-7B-Instruct, "
                                 "matched by its folder name")


def test_compose_bind_mount_names_the_model(tmp_path):
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n"
        "  tgi:\n"
        f"    image: {TGI}\n"
        "    volumes:\n"
        "      - ./models/Qwen2.5-7B-Instruct:/data:ro\n"
        "    command:\n"
        "      - --model-id=/data\n"
        "      - --max-input-length=2048\n"
        "      - --max-total-tokens=4096\n")
    (row,) = rows(tmp_path / "docker-compose.yml")
    assert (row["model"], row["verdict"]) == ("./models/Qwen2.5-7B-Instruct", "needs >= 15.9 GiB/GPU")


@pytest.mark.parametrize("mount", [
    "$volume:/data",  # the host folder's name is not typed
    "qwen-weights:/data",  # a named volume: no host folder
    "$PWD/models/Qwen2.5-7B-Instruct:/weights",  # another target
])
def test_nothing_named_is_left_as_it_was(tmp_path, mount):
    (row,) = rows(script(tmp_path, mount))
    assert (row["model"], row["why_unknown"]) == ("/data", "model not resolved")


def test_a_path_below_the_target_keeps_its_own_folder(tmp_path):
    (row,) = rows(script(tmp_path, "$PWD/models:/data", "/data/Qwen2.5-7B-Instruct"))
    assert (row["model"], row["verdict"]) == ("/data/Qwen2.5-7B-Instruct", "needs >= 15.9 GiB/GPU")


def test_run_mounts_reads_docker_spellings():
    assert run_mounts(["docker", "run", "-v", "./a/M:/data:ro,z", "--volume=/h/N:/n",
                       "--mount", "type=bind,source=/s/O,target=/o", "--mount", "type=volume,src=v,dst=/p",
                       "-v", "${X:-/d}:/q"]) == {"/data": "./a/M", "/n": "/h/N", "/o": "/s/O"}
    assert host_folder("/data/", {"/data": "./a/M/"}) == "./a/M"
    assert host_folder("/data", {"/data": "./a/$NAME"}) is None


@pytest.mark.parametrize("mounts", [
    "./models/Llama-3.1-8B-Instruct:/data -v ./models/Qwen2.5-7B-Instruct:/data",
    "./models/Llama-3.1-8B-Instruct:/data/ -v ./models/Qwen2.5-7B-Instruct:/data",
])
def test_two_mounts_at_one_target_name_nothing(tmp_path, mounts):
    # Docker refuses the container ("Duplicate mount point: /data"); before, the last mount named the model
    (row,) = rows(script(tmp_path, mounts))
    assert (row["model"], row["why_unknown"]) == ("/data", "model not resolved")
    assert run_mounts(["-v", "./a/M:/data", "-v", "./b/N:/data/"]) == {"/data": ""}
    assert host_folder("/data", {"/data": "./a/M", "/data/": "./b/N"}) is None


def test_compose_two_mounts_at_one_target_name_nothing(tmp_path):
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n"
        "  tgi:\n"
        f"    image: {TGI}\n"
        "    volumes:\n"
        "      - ./models/Llama-3.1-8B-Instruct:/data\n"
        "      - type: bind\n"
        "        source: ./models/Qwen2.5-7B-Instruct\n"
        "        target: /data\n"
        "    command: [--model-id=/data, --max-input-length=2048, --max-total-tokens=4096]\n")
    (row,) = rows(tmp_path / "docker-compose.yml")
    assert (row["model"], row["why_unknown"]) == ("/data", "model not resolved")
