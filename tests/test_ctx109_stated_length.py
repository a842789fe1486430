"""CTX109 and a model whose config states two lengths (CohereForAI/c4ai-command-r-v01: max_position_embeddings 8,192
and model_max_length 131,072, its advertised 128K). SGLang reads model_max_length first and vLLM from 0.8.3 lets it
override the smallest key, so each starts with 131,072 by default: before, that default was a CTX109 error on both
(sgl-project/ome@17b77ed config/runtimes/srt/CohereForAI/c4ai-command-r-v01-rt.yaml sets no context length)."""
from __future__ import annotations

from helpers import run

SGLANG = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: command-r
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
      - name: engine
        image: lmsysorg/sglang:v0.5.5
        command: [python3, -m, sglang.launch_server, --model-path, CohereForAI/c4ai-command-r-v01, --tp-size, "4"]
        resources:
          limits: {nvidia.com/gpu: 4}
"""
VLLM = SGLANG.replace("lmsysorg/sglang:v0.5.5", "vllm/vllm-openai:v0.10.1").replace(
    "python3, -m, sglang.launch_server, --model-path,", "vllm, serve,").replace("--tp-size", "--tensor-parallel-size")


def _check(tmp_path, monkeypatch, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return run(["check", "--select", "CTX109", *files])


def test_the_engines_default_from_the_models_stated_length_is_no_error(tmp_path, monkeypatch):
    out = _check(tmp_path, monkeypatch, {"sglang.yaml": SGLANG, "vllm.yaml": VLLM})
    assert (out.out, out.err) == ("", "ctxlint: no findings in 2 files, 2 deployments\n")


def test_a_context_above_every_stated_length_is_still_an_error(tmp_path, monkeypatch):
    # 200,000 is above both lengths, on SGLang and on any vLLM
    older = VLLM.replace("v0.10.1", "v0.8.2").replace('"4"]', '"4", --max-model-len, "200000"]')
    above = SGLANG.replace('"4"]', '"4", --context-length, "200000"]')
    out = _check(tmp_path, monkeypatch, {"older.yaml": older, "above.yaml": above})
    assert [line.split(" [")[0] for line in out.out.splitlines()] == ["above.yaml:13:135: CTX109",
                                                                     "older.yaml:13:111: CTX109"]


def test_an_older_vllm_accepts_a_length_up_to_model_max_length(tmp_path, monkeypatch):
    # before 0.8.3 vLLM's default is the smallest key (8,192), but a --max-model-len above it and at most
    # model_max_length is accepted in every release since vllm-project/vllm#3727 (2024-03-29; issue #3676)
    files = {f"v{tag}.yaml": VLLM.replace("v0.10.1", f"v{tag}").replace('"4"]', '"4", --max-model-len, "131072"]')
             for tag in ("0.4.2", "0.6.3", "0.8.2")}
    out = _check(tmp_path, monkeypatch, files)
    assert (out.out, out.err) == ("", "ctxlint: no findings in 3 files, 3 deployments\n")
