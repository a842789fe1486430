"""CTX310: a pinned vLLM release whose model registry lacks the model's architecture class."""
from __future__ import annotations

from ctxlint.engine import Settings, lint_text

MANIFEST = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {{name: chat}}
spec:
  model: {{id: {model}}}
  engine: {{name: {engine}, version: "{version}"}}
  serving:
    roles:
      - role: unified
        context_length: 8192
        kv_pool_tokens: 400000
"""


def ctx310(model: str, version: str, engine: str = "vllm") -> list:
    report = lint_text(MANIFEST.format(model=model, version=version, engine=engine), "m.yaml",
                       Settings(select=("CTX310",)))
    return [f"{f.line}:{f.column} {f.message}" for f in report.findings]


def test_before_the_transformers_fallback_vllm_refuses_the_model() -> None:
    assert ctx310("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "0.6.6") == [
        "6:33 vLLM 0.6.6 has no implementation of NemotronHForCausalLM (the architecture of "
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16): its model registry gains it in 0.9.1 "
        "(vllm-project/vllm@v0.9.1:vllm/model_executor/models/registry.py), so it refuses to load the model "
        "(\"Model architectures ['NemotronHForCausalLM'] are not supported for now\"). Use vLLM 0.9.1 or later"]


def test_from_0_7_2_the_transformers_fallback_is_named() -> None:
    (found,) = ctx310("openai/gpt-oss-20b", "0.7.2")
    assert "runs the model only through its Transformers fallback" in found and "Use vLLM 0.10.1 or later" in found
    (found,) = ctx310("openai/gpt-oss-20b", "0.10.0")
    assert "gains it in 0.10.1" in found


def test_the_first_release_its_pre_releases_and_later_ones_are_not_reported() -> None:
    for version in ("0.10.1", "0.10.1rc1", "0.10.1.1", "0.11.0", "0.10.1.dev20250801"):
        assert ctx310("openai/gpt-oss-20b", version) == [], version


def test_no_guess_without_a_listed_class_a_pinned_release_or_vllm() -> None:
    assert ctx310("Qwen/Qwen2.5-7B-Instruct", "0.5.0") == []      # a class the table does not list
    assert ctx310("openai/gpt-oss-20b", "latest") == []           # no release pinned
    assert ctx310("openai/gpt-oss-20b", "0.4.0", engine="sglang") == []
