"""vLLM integer flags read differently by release (FlagSpec.int_eras): `32k` refused before the human-readable
suffixes (0.8.4 for --max-model-len), `auto` / `-1` auto-fit only from 0.14.0; refused at the token for a release
that refuses them (not when the release is unknown: the newest reads them), and their newest reading never
that release's."""
from __future__ import annotations

from helpers import run

from ctxlint.engines import parse_invocation
from ctxlint.engines.int_eras import at_release

_K8S = """apiVersion: apps/v1
kind: Deployment
metadata: {name: lab}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:TAG
        args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "VALUE"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def _check(tmp_path, tag: str, value: str) -> list[str]:
    path = tmp_path / "d.yaml"
    path.write_text(_K8S.replace("TAG", tag).replace("VALUE", value))
    return [line.split(": ", 1)[1] for line in run(["check", str(path)]).out.splitlines() if "CTX301" in line]


def _engine_ctx(tmp_path, tag: str, value: str) -> str:
    path = tmp_path / "d.yaml"
    path.write_text(_K8S.replace("TAG", tag).replace("VALUE", value))
    row = run(["audit", str(path)]).out.splitlines()[2]
    return row.split("unified")[1].split()[1]


def test_suffixes_before_their_release_are_refused_with_the_number_to_write(tmp_path):
    assert _check(tmp_path, "v0.6.3", "32k") == [
        "CTX301 [error] vllm 0.6.3 would refuse to start: argument --max-model-len: invalid int value: '32k' "
        "(0.8.4 and later read '32k' as 32,000: write 32000) (engine-rejects-value)"]
    assert _check(tmp_path, "v0.8.4", "32k") == [] and _check(tmp_path, "v0.12.0", "32K") == []
    # an unpinned image runs the newest release, which reads it: refused only by older ones, it is no error
    assert _check(tmp_path, "latest", "32k") == []


def test_auto_before_its_release_is_refused_and_accepted_from_it(tmp_path):
    assert _check(tmp_path, "v0.9.2", "auto") == [
        "CTX301 [error] vllm 0.9.2 would refuse to start: argument --max-model-len: invalid human_readable_int "
        "value: 'auto' (0.14.0 and later read 'auto' as auto-fit: write the length, or leave the flag out for the "
        "model's own) (engine-rejects-value)"]
    assert _check(tmp_path, "v0.14.0", "auto") == [] and _check(tmp_path, "v0.15.1", "-1") == []
    assert _check(tmp_path, "latest", "AUTO") == []


def test_minus_one_before_auto_fit_is_the_length_itself(tmp_path):
    said = _check(tmp_path, "v0.13.0", "-1")
    assert said == ["CTX301 [error] vllm 0.13.0 would take -1 as the length itself, not auto-fit: argument "
                    "--max-model-len: -1 auto-fits the length to the KV cache only from 0.14.0 on; write the length, "
                    "or leave the flag out for the model's own (engine-rejects-value)"]


def test_the_reading_of_a_release_that_refuses_is_not_its_engine_context(tmp_path):
    # auto-fit (the pool's 32,928) only where auto is read; at 0.9.2 the context is the model's default, not it
    assert _engine_ctx(tmp_path, "v0.14.0", "auto") != _engine_ctx(tmp_path, "v0.9.2", "auto")
    assert _engine_ctx(tmp_path, "v0.9.2", "auto") == "131,072"
    assert _engine_ctx(tmp_path, "v0.6.3", "32k") == "131,072" and _engine_ctx(tmp_path, "v0.8.4", "32k") == "32,000"


def test_the_parser_gives_the_release_each_reading_needs():
    inv = parse_invocation("vllm", ["--max-model-len", "16K", "--max-num-batched-tokens=8k"])
    assert {(p.flag, p.token_index, p.until) for p in inv.errors} == {
        ("max_model_len", 1, "0.8.4"), ("max_num_batched_tokens", 2, "0.9.1")}
    assert inv.value("max_model_len") == 16384  # the newest reading, until the release is known
    assert at_release(inv, "0.8.3").value("max_model_len") is None
    assert at_release(inv, "0.9.0").value("max_model_len") == 16384
    assert at_release(inv, "0.9.0").value("max_num_batched_tokens") is None
    assert at_release(inv, "0.9.1").value("max_num_batched_tokens") == 8000
    assert at_release(inv, None) is inv
    plain = parse_invocation("vllm", ["--max-model-len", "16384", "--max-num-batched-tokens", "8192"])
    assert plain.errors == ()  # a plain integer is every release's


def test_a_config_file_value_is_read_by_release_too():
    from ctxlint.engines.config import apply_config

    applied = apply_config(parse_invocation("vllm", []), {"max_model_len": "32k"}, "cfg.yaml")
    assert [(p.flag, p.until) for p in applied.errors] == [("max_model_len", "0.8.4")]
    assert applied.errors[0].message.startswith("cfg.yaml: max_model_len: invalid int value: '32k'")
    assert at_release(applied, "0.8.3").value("max_model_len") is None
