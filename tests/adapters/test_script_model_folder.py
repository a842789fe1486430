"""A model path below a directory the script does not know, whose folder name it types (engines/model_folder.py).

Modelled on iisquare/fs-gpt's `sbin/vllm-generate.sh` (sweep cli25/cli26): `PROJECT_ROOT=$(dirname $(dirname
$(readlink -f $0)))`, `MODEL_PATH=${PROJECT_ROOT}/models/Qwen2.5-0.5B-Instruct`, then `vllm serve ${MODEL_PATH}`; and
on lijiawei20161002/password_locking's `--model $HOME/models/NAME`. The folder the engine loads is the path's last
segment, typed in the script, and a local path's folder name is what the model is matched by anyway: the
deployment gets the model (before: "no model id", no memory need), and the audit says it was matched by its folder
name. A last segment that is itself not known names no model."""
from __future__ import annotations

import json

import pytest

from helpers import run

ROOT = 'ROOT=$(dirname $(dirname $(readlink -f $0)))\n'
TAIL = "export CUDA_VISIBLE_DEVICES=0\n"


def rows(path) -> list:
    return json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]


def check(path) -> str:
    return run(["check", "--isolated", "-q", str(path)]).out


def script(tmp_path, body: str):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + body)
    return path


@pytest.mark.parametrize("body, written", [
    (ROOT + "MODEL_PATH=${ROOT}/models/Qwen2.5-7B-Instruct\n" + TAIL +
     "vllm serve ${MODEL_PATH} --max-model-len 32768 -tp 1\n", "${ROOT}/models/Qwen2.5-7B-Instruct"),
    (ROOT + TAIL + 'vllm serve "${ROOT}/models/Qwen2.5-7B-Instruct" --max-model-len 32768 -tp 1\n',
     "${ROOT}/models/Qwen2.5-7B-Instruct"),
    (TAIL + "python -m vllm.entrypoints.openai.api_server --model $HOME/models/Qwen2.5-7B-Instruct "
     "--max-model-len 32768\n", "$HOME/models/Qwen2.5-7B-Instruct"),
    # a variable set to a variable set to the path: followed to the path as typed
    (ROOT + "M=${ROOT}/models/Qwen2.5-7B-Instruct\nMODEL=$M\n" + TAIL + "vllm serve $MODEL --max-model-len 32768\n",
     "${ROOT}/models/Qwen2.5-7B-Instruct"),
])
def test_the_typed_folder_name_names_the_model(tmp_path, body, written):
    path = script(tmp_path, body)
    (row,) = rows(path)
    assert (row["model"], row["verdict"], row["why_unknown"]) == (written, "needs >= 20 GiB/GPU", None)
    assert row["model_from"] == (f"{written}: architecture of Qwen/Qwen2.5-7B-Instruct, matched by its folder name")
    # the unknown directory is no value a check waits for: no CTX008, only the device CTX208 asks for
    assert [line.split(" [")[0].rsplit(" ", 1)[1] for line in check(path).splitlines()] == ["CTX208"]


def test_sglang_model_path_flag(tmp_path):
    path = script(tmp_path, TAIL + "python -m sglang.launch_server --model-path ${MODELS}/Qwen2.5-7B-Instruct "
                                   "--context-length 32768\n")
    (row,) = rows(path)
    assert (row["model"], row["verdict"]) == ("${MODELS}/Qwen2.5-7B-Instruct", "needs >= 23.4 GiB/GPU")


@pytest.mark.parametrize("model", ["${ROOT}/${NAME}", "${NAME}-Instruct", "$MODEL", "${ROOT}/", "$(pwd)"])
def test_a_last_segment_not_wholly_typed_names_no_model(tmp_path, model):
    path = script(tmp_path, TAIL + f"vllm serve {model} --max-model-len 32768\n")
    (row,) = rows(path)
    assert (row["model"], row["why_unknown"]) == ("(no model id)", "model not resolved")
    assert "CTX008" in check(path)


def test_a_path_set_in_each_branch_is_read_in_that_branch(tmp_path):
    # an `if`/`else` that sets the path is read once per branch (scalar_branches.py), each named by its value
    path = script(tmp_path, ROOT + 'if [ -n "$1" ]; then MODEL_PATH=${ROOT}/models/Qwen2.5-7B-Instruct; '
                                   'else MODEL_PATH=${ROOT}/models/Llama-3.1-8B-Instruct; fi\n' + TAIL +
                  "vllm serve ${MODEL_PATH} --max-model-len 32768\n")
    assert sorted((r["name"], r["model"]) for r in rows(path)) == [
        ("serve (${ROOT}/models/Llama-3.1-8B-Instruct)", "${ROOT}/models/Llama-3.1-8B-Instruct"),
        ("serve (${ROOT}/models/Qwen2.5-7B-Instruct)", "${ROOT}/models/Qwen2.5-7B-Instruct")]


def test_a_path_set_in_a_loop_stays_unknown(tmp_path):
    path = script(tmp_path, ROOT + "for m in a b; do MODEL_PATH=${ROOT}/models/Qwen2.5-7B-Instruct; done\n" + TAIL +
                  "vllm serve ${MODEL_PATH} --max-model-len 32768\n")
    assert [r["model"] for r in rows(path)] == ["(no model id)"]


def test_a_folder_the_catalog_lacks_is_named_with_its_unknown_directory(tmp_path):
    # lijiawei20161002/password_locking's `--model $HOME/models/password_locked_model`: no catalog entry, so the
    # model is not resolved, and the hint asks for the folder beside the deploy file, not at `$HOME/...` from it
    path = script(tmp_path, "python -m vllm.entrypoints.openai.api_server --model $HOME/models/password_locked_model "
                            "--max-model-len 2048\n")
    assert check(path) == (
        f"{path}:2:54: CTX208 [info] KV pool of unified not declared and not derivable: model "
        "'$HOME/models/password_locked_model' is not in the built-in catalog: a local path: put the model's config.json "
        "in a folder password_locked_model/ beside the deploy file, or add the model under `models:` in .ctxlint.yaml; "
        "capacity checks skip these roles (capacity-not-derivable)\n")


@pytest.mark.parametrize("text, repo_id, name, local", [
    ("${ROOT}/models/Qwen2.5-7B-Instruct", "models/Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct", True),
    ("$(dirname $0)/Qwen2.5-7B-Instruct", None, "Qwen2.5-7B-Instruct", True),  # no pair with the unknown part
    ("${A}x/Qwen2.5-7B-Instruct", None, "Qwen2.5-7B-Instruct", True),  # a segment glued to it is not typed whole
    ("${MODEL}", None, "${MODEL}", False),  # nothing typed: read as before
    # the unknown part need not come first: a command substitution in backquotes, a variable between typed folders
    ("`pwd`/Qwen2.5-7B-Instruct", None, "Qwen2.5-7B-Instruct", True),
    ("models/$VARIANT/Qwen2.5-7B-Instruct", None, "Qwen2.5-7B-Instruct", True),
])
def test_parse_ref_keeps_only_the_segments_typed_after_the_unknown_part(text, repo_id, name, local):
    from ctxlint.resolution.names import parse_ref

    ref = parse_ref(text)
    assert (ref.repo_id, ref.name, ref.local) == (repo_id, name, local)


def test_a_compose_command_reads_the_same(tmp_path):
    # Compose fills `$HOME` from the host's environment when it starts the service: the folder is typed all the same
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  sgl:\n    image: lmsysorg/sglang:v0.5.2\n    command: python3 -m sglang.launch_server "
                    "--model-path $HOME/models/Qwen2.5-7B-Instruct --context-length 32768\n")
    (row,) = rows(path)
    assert (row["model"], row["verdict"]) == ("$HOME/models/Qwen2.5-7B-Instruct", "needs >= 19.2 GiB/GPU")


@pytest.mark.parametrize("flag", ["--model=", "--model-path="])
def test_a_model_flag_joined_by_equals_names_the_path_not_the_flag(tmp_path, flag):
    # `--model=$HOME/models/NAME` is one word: the path is what follows the `=`, so the model is that path, matched
    # by its folder name, and a folder the catalog lacks is placed at the path (column 20), never the flag's word
    # looked up on the Hub as `--model=$HOME/...`
    program, length = ("vllm serve", "--max-model-len") if flag == "--model=" else \
        ("python -m sglang.launch_server", "--context-length")
    known = script(tmp_path, f"{program} {flag}$HOME/models/Qwen2.5-7B-Instruct {length} 32768\n")
    (row,) = rows(known)
    assert (row["model"], row["model_from"]) == (
        "$HOME/models/Qwen2.5-7B-Instruct",
        "$HOME/models/Qwen2.5-7B-Instruct: architecture of Qwen/Qwen2.5-7B-Instruct, matched by its folder name")
    lacking = script(tmp_path, f"{program} {flag}$HOME/models/my-model {length} 32768\n")
    assert check(lacking) == (
        f"{lacking}:2:{len(program) + 2 + len(flag)}: CTX208 [info] KV pool of unified not declared and not derivable: model "
        "'$HOME/models/my-model' is not in the built-in catalog: a local path: put the model's config.json in a folder "
        "my-model/ beside the deploy file, or add the model under `models:` in .ctxlint.yaml; capacity checks skip "
        "these roles (capacity-not-derivable)\n")


def test_a_kubernetes_argument_below_an_unknown_directory_stays_unknown(tmp_path):
    # as docs/inputs.md says: Kubernetes expands `$(DIR)` only from the container's env and passes it as written
    # otherwise, so `$(MODEL_DIR)/NAME` names no model and the directory is CTX008, as before model_folder.py
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
                    "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.9.1\n"
                    "        envFrom: [{configMapRef: {name: cfg}}]\n"
                    '        args: ["--model", "$(MODEL_DIR)/Qwen2.5-7B-Instruct", "--max-model-len", "32768"]\n'
                    "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    (row,) = rows(path)
    assert (row["model"], row["why_unknown"]) == ("(no model id)", "model not resolved")
    assert f"{path}:11:28: CTX008 [info] values ctxlint cannot resolve: --model $(MODEL_DIR) (MODEL_DIR is not set in " \
           "the file)" in check(path)


@pytest.mark.parametrize("model, name", [("`pwd`/my-model", "my-model"), ("/data/$USER/my-model", "my-model")])
def test_a_folder_the_catalog_lacks_under_an_unknown_part_anywhere_is_asked_for_beside_the_file(tmp_path, model, name):
    # the path holds a part the file does not give wherever it stands: the hint asks for the folder beside the deploy
    # file, never for `config.json` at the path as written (`/data/$USER/...`), nor on the Hub (`` `pwd`/... ``)
    path = script(tmp_path, f"vllm serve {model} --max-model-len 2048\n")
    assert check(path) == (
        f"{path}:2:12: CTX208 [info] KV pool of unified not declared and not derivable: model '{model}' is not in the "
        f"built-in catalog: a local path: put the model's config.json in a folder {name}/ beside the deploy file, or "
        "add the model under `models:` in .ctxlint.yaml; capacity checks skip these roles (capacity-not-derivable)\n")
    (row,) = rows(path)
    assert (row["model"], row["why_unknown"]) == (model, "model not resolved")


@pytest.mark.parametrize("model", ['"$HOME/my models/Qwen2.5-7B-Instruct"', '"/data/my models/Qwen2.5-7B-Instruct"'])
def test_a_path_with_a_space_is_said_once_in_model_from(tmp_path, model):
    # a space in the path as written is no adapter's account of its reading (srt_model.py's): model_from said the
    # path twice, "P; P: architecture of ..."
    path = script(tmp_path, f"vllm serve {model} --max-model-len 32768\n")
    (row,) = rows(path)
    written = model.strip('"')
    assert row["model_from"] == f"{written}: architecture of Qwen/Qwen2.5-7B-Instruct, matched by its folder name"


def test_a_gguf_file_the_catalog_lacks_below_an_unknown_directory_is_looked_for_beside_the_file(tmp_path):
    # `${MODELS}/model.gguf` is no place ctxlint can read a header from: only the file's name beside the deploy file
    path = script(tmp_path, "llama-server -m ${MODELS}/model.gguf -c 32768\n")
    assert check(path) == (
        f"{path}:2:17: CTX208 [info] KV pool of unified not declared and not derivable: model '${{MODELS}}/model.gguf' "
        "is not in the built-in catalog: a GGUF file, whose header ctxlint reads (install `ctxlint[gguf]`) when it "
        "finds the file as model.gguf beside the deploy file; or add the model under `models:` in .ctxlint.yaml; "
        "capacity checks skip these roles (capacity-not-derivable)\n")
