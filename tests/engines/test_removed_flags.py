"""Flags a later engine release dropped (FlagSpec.removed_in): refused there, read before, and what they set
counts only at the releases that still have them."""
from __future__ import annotations

from helpers import run

from ctxlint.engines import parse_invocation, spec_for
from ctxlint.engines.specs import flag_gone

_ROPE = '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}'
_COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:TAG
    command: --model Qwen/Qwen2.5-7B-Instruct --max-model-len 131072 ROPE --max-seq-len-to-capture 8192
"""


def _said(tmp_path, tag: str, rope: str = f"--rope-scaling '{_ROPE}'") -> list[str]:
    path = tmp_path / f"{tag or 'none'}.yaml"
    text = _COMPOSE.replace("ROPE", rope)
    path.write_text(text.replace(":TAG", f":{tag}") if tag else text.replace(":TAG", ""))
    return [line.split(": ", 1)[1] for line in run(["check", str(path)]).out.splitlines()
            if "CTX301" in line or "CTX109" in line]


def test_a_release_without_the_flags_refuses_them_at_the_flag_with_what_to_write(tmp_path):
    assert _said(tmp_path, "v0.12.0") == [
        "CTX109 [error] 131,072 > 32,768 x 1 = 32,768: the unified context length 131,072 exceeds the model's trained "
        "positions times its RoPE scaling factor by 98,304 tokens. Lower it to 32,768, or declare the RoPE scaling "
        "the model is actually served with (--hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": "
        "F, \"original_max_position_embeddings\": N}}' with F >= 4.00) (context-exceeds-trained-positions)",
        "CTX301 [error] vllm 0.12.0 would refuse to start: unrecognized arguments: --rope-scaling (dropped in 0.11.1: "
        "write --hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, "
        "\"original_max_position_embeddings\": 32768}}' instead) (engine-rejects-value)",
        "CTX301 [error] vllm 0.12.0 would refuse to start: unrecognized arguments: --max-seq-len-to-capture (dropped "
        "in 0.11.0: remove it; V1 captures CUDA graphs by batch size, --max-cudagraph-capture-size) "
        "(engine-rejects-value)"]


def test_the_release_that_still_reads_them_is_silent_and_the_factor_counts(tmp_path):
    assert _said(tmp_path, "v0.8.5") == []
    # 0.11.0 dropped --max-seq-len-to-capture but still read --rope-scaling
    assert [s.split(": unrecognized arguments: ")[1].split(" ")[0] for s in _said(tmp_path, "v0.11.0")] == [
        "--max-seq-len-to-capture"]


def test_an_unknown_release_names_the_releases_that_refuse(tmp_path):
    said = _said(tmp_path, "")
    assert [s.split(" would refuse")[0] for s in said] == ["CTX301 [error] vllm 0.11.1 and later",
                                                            "CTX301 [error] vllm 0.11.0 and later"]
    assert not any("CTX109" in s for s in said)  # the factor may be read: not assumed refused


def test_hf_overrides_rope_scaling_is_credited_at_every_release(tmp_path):
    rope = f"--hf-overrides '{{\"rope_scaling\": {_ROPE}}}'"
    assert [s for s in _said(tmp_path, "v0.12.0", rope) if "CTX109" in s or "rope" in s] == []


def test_the_parser_reports_each_removed_flag_once_at_its_token():
    inv = parse_invocation("vllm", ["--rope-theta=1000000", "--tokenizer-pool-size", "4", "--num-scheduler-steps",
                                    "8", "--rope_scaling", "{}"])
    refused = {(p.flag, p.token_index, p.since) for p in inv.errors}
    assert refused == {("rope_theta", 0, "0.11.1"), ("tokenizer_pool_size", 1, "0.10.0"),
                       ("num_scheduler_steps", 3, "0.10.2"), ("rope_scaling", 5, "0.11.1")}
    assert inv.value("tokenizer_pool_size") == 4  # what the releases that read it set


def test_flag_gone_is_only_true_for_a_known_release_at_or_after_the_removal():
    assert flag_gone("vllm", "rope_scaling", "0.11.1") and flag_gone("vllm", "rope_scaling", "v0.11.1rc2")
    assert not flag_gone("vllm", "rope_scaling", "0.11.0") and not flag_gone("vllm", "rope_scaling", None)
    assert not flag_gone("vllm", "max_model_len", "0.12.0")
    assert all(f.instead for f in spec_for("vllm").removed)  # every removal says what to write instead


def test_enable_reasoning_is_refused_from_0_10_0_and_read_as_a_switch_before(tmp_path):
    # The shape of banjuede/deepseek-test@HEAD:vllm-test/serve.sh (`vllm serve ... --max-model-len 65536
    # --enable-reasoning --reasoning-parser deepseek_r1`): the switch left vLLM's parser in 0.10.0.
    def said(tag):
        path = tmp_path / f"{tag}.yaml"
        path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:" + tag + "\n    command: --model "
                        "Qwen/Qwen3-8B --enable-reasoning --reasoning-parser deepseek_r1 --max-model-len 8192\n")
        return [line.split(": ", 1)[1] for line in run(["check", str(path)]).out.splitlines() if "CTX301" in line]

    assert said("v0.10.0") == [
        "CTX301 [error] vllm 0.10.0 would refuse to start: unrecognized arguments: --enable-reasoning (dropped in "
        "0.10.0: remove it; --reasoning-parser alone turns reasoning on) (engine-rejects-value)"]
    assert said("v0.9.2") == [] and said("v0.7.1") == []
    # both came with vllm-project/vllm#12473: the vllm==0.7.0 wheel has neither, so 0.7.0 and earlier exit on them
    assert said("v0.7.0") == [
        f"CTX301 [error] vllm 0.7.0 would refuse to start: unrecognized arguments: {flag} (a spelling from 0.7.1 on: "
        "earlier releases have no such flag) (engine-rejects-value)" for flag in ("--enable-reasoning",
                                                                                  "--reasoning-parser")]
    assert len(said("v0.6.6.post1")) == 2
    # a switch: the parser takes no value from the word after it, so the parser flag is still read
    inv = parse_invocation("vllm", ["--enable-reasoning", "--reasoning-parser", "deepseek_r1"])
    assert inv.value("reasoning_parser") == "deepseek_r1"
    # refused from 0.10.0, and before 0.7.1 as the parser flag is (a release's refusals: Problem.since / until)
    assert [(p.flag, p.token_index, p.since, p.until) for p in inv.errors] == [
        ("enable_reasoning", 0, "0.10.0", None), ("reasoning_parser", 1, None, "0.7.1"),
        ("enable_reasoning", 0, None, "0.7.1")]
