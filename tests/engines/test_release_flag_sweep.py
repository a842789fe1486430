"""Flags the newest vLLM and SGLang releases dropped, restored or restrict, read in each release's own parser (the
vllm 0.16.0-0.34.0 and sglang 0.5.4-0.5.23 wheels: EngineArgs.add_cli_args with make_arg_parser, ServerArgs.add_cli_args).
Each case failed before: ctxlint read the flag as any release's, so a command the pinned release exits on
("unrecognized arguments", "invalid choice") was taken as started."""
from __future__ import annotations

import pytest
from helpers import compose_refusals as _refused
from helpers import run

from ctxlint.engines import parse_invocation, spec_for
from ctxlint.engines.specs import flag_gone

_VLLM = "--model Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 "


@pytest.mark.parametrize("flag,typed,tag,said", [
    # vllm-project/vllm#36216: in the 0.17.1 wheel's vllm/engine/arg_utils.py, not in 0.18.0's
    ("swap_space", "--swap-space 16", "v0.18.0",
     "CTX301 [error] vllm 0.18.0 would refuse to start: unrecognized arguments: --swap-space (dropped in 0.18.0: "
     "remove it; V1 never swaps KV to CPU) (engine-rejects-value)"),
    # vllm-project/vllm#49244: in the 0.26.0 wheel, not in 0.27.0's
    ("max_num_partial_prefills", "--max-num-partial-prefills 2", "v0.27.0",
     "CTX301 [error] vllm 0.27.0 would refuse to start: unrecognized arguments: --max-num-partial-prefills (dropped "
     "in 0.27.0: remove it; V1 caps long prefills with --long-prefill-token-threshold) (engine-rejects-value)"),
    # in the 0.27.0 wheel, not in 0.28.0's
    ("calculate_kv_scales", "--calculate-kv-scales", "v0.34.0",
     "CTX301 [error] vllm 0.34.0 would refuse to start: unrecognized arguments: --calculate-kv-scales (dropped in "
     "0.28.0: remove it; the KV scales come from the checkpoint, else 1.0) (engine-rejects-value)"),
])
def test_vllm_refuses_a_flag_it_dropped_at_the_release_that_dropped_it(tmp_path, flag, typed, tag, said):
    assert _refused(tmp_path, f"vllm/vllm-openai:{tag}", _VLLM + typed) == [said]
    f = spec_for("vllm").by_name(flag)
    before = {"0.18.0": "0.17.1", "0.27.0": "0.26.0", "0.28.0": "0.27.0"}[f.removed_in]
    assert _refused(tmp_path, f"vllm/vllm-openai:v{before}", _VLLM + typed) == []  # the last release with it


def test_disable_log_requests_is_refused_only_between_its_removal_and_its_return(tmp_path):
    # a deprecated switch up to 0.16.0 (vllm-0.16.0/vllm/engine/arg_utils.py:2087-2093), absent from the 0.17.1-0.32.0
    # wheels, and from 0.33.0 the inverse of --enable-log-requests (EnableDisableAction)
    command = _VLLM + "--disable-log-requests"
    assert _refused(tmp_path, "vllm/vllm-openai:v0.32.0", command) == [
        "CTX301 [error] vllm 0.32.0 would refuse to start: unrecognized arguments: --disable-log-requests (dropped in "
        "0.17.0, back in 0.33.0: request logging is off by default; write --no-enable-log-requests or nothing) "
        "(engine-rejects-value)"]
    for tag in ("v0.16.0", "v0.33.0", "v0.34.0", "latest"):  # read there; an unknown release is no error
        assert _refused(tmp_path, f"vllm/vllm-openai:{tag}", command) == [], tag
    assert [flag_gone("vllm", "disable_log_requests", r) for r in ("0.16.0", "0.17.0", "0.32.0", "0.33.0", None)] \
        == [False, True, True, False, False]


def test_a_store_true_switch_has_no_negative_spelling():
    # --disable-log-stats is store_true in every wheel read (0.16.0-0.34.0): `--no-disable-log-stats` is no flag of it
    inv = parse_invocation("vllm", ["--model", "m", "--no-disable-log-stats"])
    assert inv.value("disable_log_stats") is False and [p.flag for p in inv.unknown_flags] == ["--no-disable-log-stats"]


@pytest.mark.parametrize("engine,image,head", [
    ("vllm", "vllm/vllm-openai:v0.34.0", "--model Qwen/Qwen2.5-7B-Instruct"),
    ("sglang", "lmsysorg/sglang:v0.5.23", "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"),
])
def test_dtype_outside_the_parsers_choices_is_refused_at_every_release(tmp_path, engine, image, head):
    # ModelDType (vllm-0.34.0/vllm/config/model.py:106) and ServerArgs' --dtype choices (sglang 0.5.4-0.5.23)
    assert _refused(tmp_path, image, head + " --dtype bf16") == [
        f"CTX301 [error] {engine} would refuse to start: argument --dtype: invalid choice: 'bf16' (choose from auto, half, float16, "
        "bfloat16, float, float32) (engine-rejects-value)"]
    assert _refused(tmp_path, image, head + " --dtype bfloat16") == []


def test_sglang_kv_cache_dtype_takes_only_names_some_release_has(tmp_path):
    head = "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --kv-cache-dtype "
    # vLLM's `fp8` is no SGLang name in any release read (0.5.4: auto fp8_e5m2 fp8_e4m3 bf16 bfloat16; 0.5.23:
    # sglang-0.5.23 wheel's ServerArgs adds mxfp8 nvfp4 fp4_mx_block16)
    assert _refused(tmp_path, "lmsysorg/sglang:v0.5.23", head + "fp8") == [
        "CTX301 [error] sglang would refuse to start: argument --kv-cache-dtype: invalid choice: 'fp8' (choose from auto, fp8_e5m2, fp8_e4m3, "
        "bf16, bfloat16, fp4_e2m1, mxfp8, nvfp4, fp4_mx_block16) (engine-rejects-value)"]
    for name in ("fp8_e4m3", "nvfp4", "fp4_mx_block16", "fp4_e2m1", "bf16"):
        assert _refused(tmp_path, "lmsysorg/sglang:v0.5.23", head + name) == [], name


@pytest.mark.parametrize("typed,said", [
    # DeprecatedAliasStoreAction of --dsa-prefill-backend in 0.5.19 (sglang-0.5.19/sglang/srt/server_args.py:3871),
    # absent from the 0.5.20-0.5.23 wheels' options
    ("--nsa-prefill-backend flashmla_sparse", "unrecognized arguments: --nsa-prefill-backend (dropped in 0.5.20: "
     "write --dsa-prefill-backend flashmla_sparse)"),
    ("--prefill-round-robin-balance", "unrecognized arguments: --prefill-round-robin-balance (dropped in 0.5.20: "
     "remove it; it did nothing since its deprecation)"),
    # a no-op DeprecatedAction from 0.5.8 (sglang-0.5.8/sglang/srt/server_args.py:2940-2944), absent from 0.5.14
    ("--hybrid-kvcache-ratio 0.5", "unrecognized arguments: --hybrid-kvcache-ratio (dropped in 0.5.14: write "
     "--swa-full-tokens-ratio for a window pool's share)"),
])
def test_sglang_refuses_flags_it_dropped(tmp_path, typed, said):
    head = "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct "
    assert _refused(tmp_path, "lmsysorg/sglang:v0.5.23", head + typed) == [
        f"CTX301 [error] sglang 0.5.23 would refuse to start: {said} (engine-rejects-value)"]
    assert _refused(tmp_path, "lmsysorg/sglang:v0.5.4", head + typed) == []  # read there


_KV = ('--kv-transfer-config \'{"kv_connector":"NixlConnector","kv_role":"kv_producer",'
       '"kv_connector_extra_config":{"buffer_size": 2K}}\'')


def test_vllm_expands_bare_numbers_in_a_config_flags_json_from_0_20(tmp_path):
    # vllm-0.20.0 to 0.34.0 wheels: vllm/engine/arg_utils.py _expand_json_human_readable_numbers in parse_dataclass;
    # the 0.19.0 wheel has none, and exits on the text as invalid JSON
    assert _refused(tmp_path, "vllm/vllm-openai:v0.34.0", _VLLM + _KV) == []
    assert _refused(tmp_path, "vllm/vllm-openai:latest", _VLLM + _KV) == []  # the newest reads it: no error
    assert _refused(tmp_path, "vllm/vllm-openai:v0.19.0", _VLLM + _KV) == [
        "CTX301 [error] vllm 0.19.0 would refuse to start: argument --kv-transfer-config: invalid JSON: Expecting ',' "
        "delimiter: line 1 column 102 (char 101); write {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\","
        "\"kv_connector_extra_config\":{\"buffer_size\": 2048}} (vllm expands bare human-readable numbers in it from "
        "0.20.0 on) (engine-rejects-value)"]
    inv = parse_invocation("vllm", ["--model", "m", "--kv-transfer-config", _KV.split(" ", 1)[1].strip("'")])
    assert inv.value("kv_transfer_config")["kv_role"] == "kv_producer"  # the role is read, was lost with the value
    assert inv.value("kv_transfer_config")["kv_connector_extra_config"] == {"buffer_size": 2048}


def test_bare_numbers_stay_invalid_json_where_vllm_never_expands_them():
    # --hf-overrides is typed json.loads (no expansion), and `1.5K` is refused by human_readable_int itself
    inv = parse_invocation("vllm", ["--model", "m", "--hf-overrides", '{"max_position_embeddings": 128k}',
                                    "--compilation-config", '{"max_cudagraph_capture_size": 1.5K}'])
    assert [(p.flag, p.until) for p in inv.errors] == [("hf_overrides", None), ("compilation_config", None)]
    quoted = parse_invocation("vllm", ["--model", "m", "--compilation-config", '{"mode": "3k"}'])
    assert quoted.errors == () and quoted.value("compilation_config") == {"mode": "3k"}  # strings are left alone


_L4 = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: llama}}
spec:
  template:
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:{tag}
        args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len=38000, {extra}]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
_SHORT = '--spec-method, eagle3, --spec-model, yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, --spec-tokens, "3"'
_LONG = ("--speculative-config, '{\"method\": \"eagle3\", \"model\": \"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\", "
         "\"num_speculative_tokens\": 3}'")


def _said(tmp_path, tag: str, extra: str) -> list[str]:
    path = tmp_path / "d.yaml"
    path.write_text(_L4.format(tag=tag, extra=extra))
    return [line.split(": ", 1)[1] for line in run(["check", "--isolated", str(path)]).out.splitlines()]


def test_vllm_spec_shortcuts_are_the_speculative_configs_keys(tmp_path):
    # --spec-method / --spec-model / --spec-tokens set speculative_config's keys (vllm-0.34.0/vllm/engine/
    # arg_utils.py:1899-1904, 2140-2155): the EAGLE-3 head's layer joins the KV cache, 33 x 4,096 B a token
    short, long = _said(tmp_path, "v0.34.0", _SHORT), _said(tmp_path, "v0.34.0", _LONG)
    assert short == long and "135,168 B per token per GPU" in short[0]  # was 131,072: the draft was not seen
    assert "131,072 B per token per GPU" in _said(tmp_path, "v0.34.0", '--max-num-seqs, "256"')[0]


def test_vllm_spec_shortcuts_are_refused_before_0_22(tmp_path):
    # in the 0.22.0 wheel's vllm/engine/arg_utils.py, not in 0.21.0's
    refused = [s for s in _said(tmp_path, "v0.21.0", _SHORT) if "CTX301" in s]
    assert refused == [f"CTX301 [error] vllm 0.21.0 would refuse to start: unrecognized arguments: {flag} (a spelling "
                       "from 0.22.0 on: earlier releases have no such flag) (engine-rejects-value)"
                       for flag in ("--spec-method", "--spec-model", "--spec-tokens")]


@pytest.mark.parametrize("tag,typed,refused", [
    # the multimodal profile's switches, read in each wheel's vllm/engine/arg_utils.py: --skip-mm-profiling from
    # 0.10.1 (not in 0.10.0), --mm-encoder-tp-mode from 0.10.2 (not in 0.10.1.1), the old data-parallel switch
    # gone from 0.13.0
    ("v0.10.0", "--skip-mm-profiling", True), ("v0.10.1.1", "--skip-mm-profiling", False),
    ("v0.10.1.1", "--mm-encoder-tp-mode data", True), ("v0.10.2", "--mm-encoder-tp-mode data", False),
    ("v0.11.0", "--enable-multimodal-encoder-data-parallel", False),
    ("v0.13.0", "--enable-multimodal-encoder-data-parallel", True)])
def test_the_multimodal_profile_switches_exist_only_in_their_releases(tmp_path, tag, typed, refused):
    said = _refused(tmp_path, f"vllm/vllm-openai:{tag}", "--model Qwen/Qwen2.5-VL-7B-Instruct " + typed)
    assert bool(said) is refused, said
