"""A gateway's routes are joined to the engines of its own directory's checked files (discover.by_directory): a
LiteLLM config in `config/` whose host names a compose service of `../compose.yaml` is not followed there, and
CTX607 says so rather than that no checked file names the host (sweep 46, TheMrDJek/observable-vllm-stack)."""
from __future__ import annotations

COMPOSE = """\
services:
  vllm-main:
    image: vllm/vllm-openai:v0.11.0
    command: Qwen/Qwen3-8B --max-model-len 8192
"""
LITELLM = """\
model_list:
  - model_name: qwen
    litellm_params:
      model: openai/qwen
      api_base: http://vllm-main:8000/v1
"""


def test_a_gateway_in_a_subfolder_says_its_directory_was_searched(tmp_path):
    from tests.helpers import run

    (tmp_path / "compose.yaml").write_text(COMPOSE)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "litellm.yaml").write_text(LITELLM)
    out = run(["check", str(tmp_path), "--isolated", "--select", "CTX607"]).out
    assert "host vllm-main (" in out and ("names no Service or engine workload in the checked files of its directory "
                                          "(routes are not followed into another directory)") in out, out
