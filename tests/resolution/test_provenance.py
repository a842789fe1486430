"""A model the checks use that the file does not state literally says how it was reached: in the audit
(`model_from`, the table's `~`) and beside the model's name in a derived pool's account."""
from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

from helpers import run

from ctxlint.model import Source, Val
from ctxlint.resolution.provenance import model_from
from ctxlint.resolution.resolve import Context, resolve

SERVED = ("served-model-name Qwen/Qwen3-32B beside the cluster alias model.path 'qwen3-32b', architecture matched "
          "by name")
QUANTIZED = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama70}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, MODEL, --max-model-len, "131072", --tensor-parallel-size, "1"]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def _deployments(*paths):
    return json.loads(run(["audit", "--isolated", "--format", "json", *paths]).out)["deployments"]


def test_an_srt_alias_read_through_its_served_name_says_so_and_a_stated_id_does_not():
    srt, stated = "samples/srt-slurm/disagg.yaml", "samples/derived-pool/l4-too-small.yaml"
    assert [(d["model"], d["model_from"]) for d in _deployments(stated, srt)] == [
        ("meta-llama/Llama-3.1-8B-Instruct", None), ("Qwen/Qwen3-32B", SERVED)]
    rows = list(csv.reader(io.StringIO(run(["audit", "--isolated", "--format", "csv", srt]).out)))
    assert (rows[0][-1], rows[1][-1]) == ("model_from", SERVED)
    out = run(["check", "--isolated", srt]).out
    assert out.count(f"(derived for Qwen/Qwen3-32B (model inferred: {SERVED}) on 4x H100-SXM-80GB, sglang:") == 3
    # a stated id (the catalog's derivative of the base, with its source): its derived pool is named as before
    assert "(derived for meta-llama/Llama-3.1-8B on 1x L4, vllm:" in run(["check", "--isolated", stated]).out
    table = run(["audit", "--isolated", srt, stated]).out
    assert "qwen3-32b-1p1d ~ " in table and "llama-8b-l4 ~" not in table
    assert "~ the model of 1 deployment is inferred from what the file says, not stated (how: model_from in " \
        "--format json or csv)" in table


def test_a_quantized_re_upload_matched_by_name_says_whose_architecture_it_is(tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text(QUANTIZED.replace("MODEL", "neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8"))
    (row,) = _deployments(str(path))
    assert row["model_from"] == ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8: architecture of meta-llama/"
                                 "Llama-3.1-70B, matched by name")
    path.write_text(QUANTIZED.replace("MODEL", "meta-llama/Llama-3.1-70B-Instruct"))
    assert _deployments(str(path))[0]["model_from"] is None  # the catalog's own derivative, with its source


def _dep(value, raw, resolution=None):
    return SimpleNamespace(model=SimpleNamespace(id=Val(value, Source("f.yaml", 1, 1), raw=raw)),
                           resolution=resolution)


def test_a_name_read_as_another_id_is_said_and_a_scheme_before_the_id_is_not():
    assert model_from(_dep("microsoft/Phi-4-mini-instruct", "phi-4-mini-instruct")) == \
        "'phi-4-mini-instruct' in the file, read as microsoft/Phi-4-mini-instruct"
    for raw in ("hf://meta-llama/Llama-3.1-8B-Instruct", "pvc://models/meta-llama/Llama-3.1-8B-Instruct", None, ""):
        assert model_from(_dep("meta-llama/Llama-3.1-8B-Instruct", raw)) == ""
    # a pod label that names the model: the resolver's step
    labelled = resolve("/mnt/models", Context(labels=(("llm-d.ai/model", "Qwen/Qwen3-8B"),)))
    assert model_from(_dep("/mnt/models", None), labelled) == \
        "/mnt/models: the pod label llm-d.ai/model=Qwen/Qwen3-8B names Qwen/Qwen3-8B"


def test_a_derivative_matched_by_its_name_alone_is_inferred_and_says_so_whole(tmp_path):
    path = tmp_path / "q.yaml"
    base = "architecture of meta-llama/Llama-3.1-8B, the base of NousResearch/Hermes-3-Llama-3.1-8B"
    rows = []
    for written in ("NousResearch/Hermes-3-Llama-3.1-8B", "someone/Hermes-3-Llama-3.1-8B", "Hermes-3-Llama-3.1-8B",
                    "/models/Hermes-3-Llama-3.1-8B"):
        path.write_text(QUANTIZED.replace("MODEL", written))
        rows.append(_deployments(str(path))[0]["model_from"])
    # before: another org's or a bare name was read as the catalog's own id (no model_from), and a folder's account
    # was cut inside the derivative's source note at its "; " (an unclosed parenthesis)
    assert rows == [None, f"someone/Hermes-3-Llama-3.1-8B: {base}, matched by name",
                    f"Hermes-3-Llama-3.1-8B: {base}, matched by name",
                    f"/models/Hermes-3-Llama-3.1-8B: {base}, matched by its folder name"]
