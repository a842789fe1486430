"""llama-server in router mode (no model; --models-preset / --models-dir) loads no model itself: each model it
serves runs in a child llama-server with the preset's settings (ggml-org/llama.cpp@145b628 tools/server/server.cpp
`is_router_server`). The shape of dinesh-se/strix-halo-llm-stack@HEAD:systemd/llama-router.service (a unit whose
`docker run --entrypoint /usr/bin/llama-server IMAGE ... --models-preset /models.ini --models-max 3`)."""
from __future__ import annotations

import json

import pytest

from helpers import run

from ctxlint.engines import parse_invocation


def _script(tmp_path, args: str):
    path = tmp_path / "router.sh"
    path.write_text(f"#!/bin/bash\nllama-server --host 0.0.0.0 --port 9292 {args}\n")
    return path


@pytest.mark.parametrize("args,said", [
    ("--models-preset /models.ini --models-max 3", "--models-preset /models.ini"),
    ("--models-dir /models --no-models-autoload", "--models-dir /models"),
])
def test_a_router_is_said_to_be_one_not_told_to_name_its_model(tmp_path, args, said):
    path = _script(tmp_path, args)
    out = run(["check", str(path)]).out
    assert (f"llama-server runs in router mode ({said}): it loads no model itself, and each model it serves runs in "
            "a llama-server of its own with the settings that file gives it, which ctxlint does not read") in out
    assert "name the model" not in out
    row = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"][0]
    assert (row["verdict"], row["why_unknown"]) == ("unknown", "llama-server router: its models are not read")


def test_a_server_without_a_model_or_router_flags_is_unchanged(tmp_path):
    # builds before router mode had a default model path: no router flag, no claim
    row = json.loads(run(["audit", str(_script(tmp_path, "-c 4096")), "--format", "json"]).out)["deployments"][0]
    assert row["why_unknown"] == "model not resolved"


def test_the_router_flags_take_their_values():
    inv = parse_invocation("llamacpp", ["--models-preset", "/models.ini", "--models-max", "3", "--models-autoload"])
    assert (inv.value("models_preset"), inv.value("models_max"), inv.value("models_autoload")) == (
        "/models.ini", 3, True)
    assert list(inv.errors) == [] and list(inv.unknown_flags) == []
    # a second word after the preset's path is none of its values: llama-server exits on it
    stray = parse_invocation("llamacpp", ["--models-preset", "/a.ini", "/b.ini"])
    assert [e.message.split(" (")[0] for e in stray.errors] == ["invalid argument: /b.ini"]


@pytest.mark.parametrize("args", ['-m "$MODEL" --models-preset /models.ini', "-hf $REPO --models-dir /models",
                                  "--model=$M --models-dir /models"])
def test_a_server_whose_model_is_an_unknown_value_is_no_router(tmp_path, args):
    # is_router_server = params.model.path.empty(): `-m "$MODEL"` names a model when the server runs, so the
    # row is one whose model is not known, not a router (before: "runs in router mode")
    path = _script(tmp_path, args)
    out = run(["check", str(path)]).out
    assert "router mode" not in out
    row = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"][0]
    assert row["why_unknown"] == "model not resolved"
