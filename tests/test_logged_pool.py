"""A KV pool vLLM logged for a model with sliding-window or chunked layers, read as its release logs it.

vLLM 0.9.1-0.20.0 log num_blocks // KV cache groups x block_size, from 0.20.1 max concurrency x
max_model_len; one request of gemma-3-1b-it (4 full-attention layers, 22 sliding-window ones: 7 groups of
4) holds about 7x a 0.10 figure, as much as the figure on 0.19 (whose admission check reserves every group
for the whole request), and a --num-gpu-blocks-override is num_blocks in every release
(ctxlint.physics.logged).
"""
from __future__ import annotations

import pytest

from helpers import run

from ctxlint.physics.accelerators import lookup_accelerator
from ctxlint.physics.kv import vllm_groups
from ctxlint.physics.logged import read_logged, request_blocks
from ctxlint.physics.models import lookup_model
from ctxlint.physics.pool import vllm_reported

GEMMA = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: g3
  annotations:
    ctxlint.io/kv-pool-tokens: "{pool}"{annotations}
spec:
  template:
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
      containers:
      - name: main
        image: vllm/vllm-openai:{tag}
        args: ["--model", "google/gemma-3-1b-it", "--max-model-len", "32768"{args}]
        resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""
READ_010 = ("30,000 as vLLM logs it: 0.10.0: num_blocks // 7 groups x 16, so 13,125-13,131 blocks; a request "
            "takes 1 block per 16 tokens in each of 1 full-attention group and 161 in each of 6 sliding-window "
            "groups (its window and a 2,048-token batch), so one request holds 194,528-194,624; one block is "
            "vLLM's null block")


def _check(tmp_path, tag="v0.10.0", pool=30000, annotations="", args="", select=""):
    path = tmp_path / "d.yaml"
    path.write_text(GEMMA.format(tag=tag, pool=pool, annotations=annotations, args=args))
    return run(["check", str(path), "--isolated", *(("--select", select) if select else ())])


def test_a_logged_010_pool_holds_seven_times_the_figure(tmp_path):
    # the report's repro: CTX201 said 32,768 > 29,984 and that vLLM refuses to start
    result = _check(tmp_path)
    assert (result.code, result.out) == (0, "")
    window = _check(tmp_path, annotations='\n    ctxlint.io/context-window: "200000"', select="CTX101")
    assert window.out == (
        f"{tmp_path / 'd.yaml'}:6:32: CTX101 [error] 200,000 > 194,624: the longest request (the advertised window "
        f"200,000) exceeds the unified KV pool 30,000 (declared), which holds 194,528-194,624 tokens for one "
        f"request ({READ_010}), by 5,376 tokens. Raise the unified pool to at least 30,784, or lower the "
        "advertised window to 194,624 and cap prompts at the gateway (and state it with the annotation "
        "ctxlint.io/gateway-max-prompt-tokens) at or below it (window-exceeds-kv-pool)\n")


def test_a_logged_019_pool_is_what_its_admission_check_admits(tmp_path):
    result = _check(tmp_path, "v0.19.1", select="CTX201")
    assert result.out == (
        f"{tmp_path / 'd.yaml'}:14:71: CTX201 [error] 32,768 > 30,000: the unified engine context length 32,768 "
        "exceeds its KV pool 30,000 (declared), which holds 29,984-30,000 tokens for one request (30,000 as vLLM "
        "logs it: 0.19.1: num_blocks // 7 groups x 16, so 13,125-13,131 blocks; its admission check "
        "(scheduler_reserve_full_isl) reserves 1 block per 16 tokens in each group, windows too, so one request "
        "holds 29,984-30,000; one block is vLLM's null block), by 2,768 tokens even at the top of its band; vLLM "
        "starts (its startup check counts the window layers only up to their window), and a request longer than "
        "30,000 tokens is never admitted: vLLM 0.19's admission check (scheduler_reserve_full_isl) reserves every "
        "KV cache group for the whole request, so it waits at the head of the queue while health checks pass "
        "(vllm#39734; --no-scheduler-reserve-full-isl or vLLM 0.20 admits it). Lower the context length to "
        "29,984, or add memory (more or larger accelerators, a higher memory fraction, an fp8 KV cache) "
        "(context-exceeds-kv-pool)\n")
    # without the full-prompt reservation 0.19 admits a request with its first chunk, as 0.10 does
    assert _check(tmp_path, "v0.19.1", args=', "--no-scheduler-reserve-full-isl"').out == ""


@pytest.mark.parametrize("tag, held", [("v0.20.0", None), ("v0.22.0", 28688), ("v0.21.0", 28688)])
def test_from_0_20_1_the_figure_is_max_concurrency_times_max_model_len(tmp_path, tag, held):
    out = _check(tmp_path, tag, select="CTX201").out
    if held is None:  # 0.20.0 still logs num_blocks // groups, and admits with the windows capped
        assert out == ""
    else:  # 30,000 < 32,768: the concurrency is below one, a request of the context length does not fit
        assert f"CTX201 [error] 32,768 > {held:,}:" in out and "max concurrency x max_model_len, so 2,760 blocks" in out
        assert "vLLM refuses to start" in out


def test_an_unknown_release_is_the_band_over_its_readings(tmp_path):
    result = _check(tmp_path, "latest")
    assert result.code == 0
    assert result.out.startswith(
        f"{tmp_path / 'd.yaml'}:14:71: CTX210 [warning] 32,768 is inside the band 28,688-194,624 of what one request "
        "can hold in the unified KV pool 30,000 (declared): whether its context length fits depends on how vLLM "
        "meant the figure (30,000 as vLLM logs it, release unknown (state the image tag): before 0.9.1: window "
        "layers store the whole context, so one request holds 29,984; 0.9.1-0.17, 0.18, 0.20.0: num_blocks // 7 "
        "groups x 16, so 13,125-13,131 blocks;")
    assert result.out.endswith(
        "State the vLLM release (the image tag) for an exact verdict; or keep the promise at or below 28,688 "
        "(within-estimate-band)\n")
    assert _check(tmp_path, "latest", 300000).out == ""  # above the band's top: fits whichever release


def test_releases_without_the_hybrid_manager_keep_the_figure_as_the_pool(tmp_path):
    for tag, args in (("v0.8.5", ""), ("v0.10.0", ', "--disable-hybrid-kv-cache-manager"'),
                      ("v0.12.0", ", \"--kv-transfer-config\", '{\"kv_connector\":\"NixlConnector\"}'")):
        out = _check(tmp_path, tag, args=args, select="CTX201").out
        assert "CTX201 [error] 32,768 > 29,984: the unified engine context length 32,768 exceeds its KV pool " \
               "30,000 (declared), which holds at most 29,984 tokens for one request (one 16-token block is " \
               "vLLM's null block), by 2,784 tokens; vLLM refuses to start" in out, tag


def test_num_gpu_blocks_override_is_num_blocks_shared_by_the_groups(tmp_path):
    # 2,500 blocks x 16 = 40,000 was held as 39,984 for one request: the 6 window groups take 966 of them
    path = tmp_path / "d.yaml"
    path.write_text(GEMMA.format(tag="v0.10.0", pool=1, annotations="", args=', "--num-gpu-blocks-override", "2500"')
                    .replace('    ctxlint.io/kv-pool-tokens: "1"\n', "").replace("  annotations:\n", ""))
    out = run(["check", str(path), "--isolated", "--select", "CTX201"]).out
    assert "CTX201 [error] 32,768 > 24,528: the unified engine context length 32,768 exceeds its KV pool 40,000 " \
           "(declared), which holds at most 24,528 tokens for one request (2,500 blocks of " \
           "--num-gpu-blocks-override: 0.10.0: a request takes 1 block per 16 tokens in each of 1 full-attention " \
           "group and 161 in each of 6 sliding-window groups (its window and a 2,048-token batch), so one request " \
           "holds 24,528; one block is vLLM's null block), by 8,240 tokens" in out
    path.write_text(path.read_text().replace('"2500"', '"3015"'))
    assert run(["check", str(path), "--isolated", "--select", "CTX201,CTX401"]).out == ""


def test_models_without_window_layers_and_other_engines_are_unchanged(tmp_path):
    llama = GEMMA.replace("google/gemma-3-1b-it", "meta-llama/Llama-3.1-8B-Instruct")
    path = tmp_path / "d.yaml"
    path.write_text(llama.format(tag="v0.10.0", pool=30000, annotations="", args=""))
    assert "CTX201 [error] 32,768 > 29,984:" in run(["check", str(path), "--isolated", "--select", "CTX201"]).out
    assert read_logged(30000, 16, lookup_model("meta-llama/Llama-3.1-8B-Instruct"), 0, {}, 32768, "0.10.0",
                       None, None) is None


def test_vllm_groups_follow_the_release():
    # gpt-oss-20b + an EAGLE layer: 13 full, 12 sliding; 0.18.0 groups by the largest when under 1.5x the least
    assert vllm_groups(13, 12, "0.17.1") == (12, 2, 1)
    assert vllm_groups(13, 12, "0.18.0") == (13, 1, 1)
    assert vllm_groups(13, 12, None) is None  # releases differ: no guess
    assert vllm_groups(4, 22, None) == (4, 1, 6)  # gemma-3-1b: the least in every release
    assert vllm_groups(12, 12, None) == (12, 1, 1) and vllm_groups(0, 4, "0.10.0") is None


def test_the_reading_inverts_to_the_figure_that_holds_a_request():
    arch, l4 = lookup_model("google/gemma-3-1b-it"), lookup_accelerator("nvidia-l4")
    for version in ("0.10.0", "0.19.1", "0.22.0", None):
        reading = read_logged(30000, 16, arch, 0, {}, 32768, version, l4, None)
        for need in (1000, 32768, 150000):
            figure = reading.logged_for(need)
            again = read_logged(figure, 16, arch, 0, {}, 32768, version, l4, None)
            assert again.held >= need, (version, need)  # the figure advised holds it in every reading
    way = read_logged(30000, 16, arch, 0, {}, 32768, "0.10.0", l4, None).ways[0]
    assert (request_blocks(way, 16, 32768), request_blocks(way, 16, 100)) == (2048 + 6 * 161, 7 + 6 * (7 + 1))


def test_the_device_sets_the_window_span_and_an_unknown_device_is_a_band():
    arch = lookup_model("google/gemma-3-1b-it")
    h100 = lookup_accelerator("H100-SXM-80GB")
    # 8,192-token batches on an H100: 545 blocks in each window group, not 161
    assert read_logged(30000, 16, arch, 0, {}, 32768, "0.10.0", h100, None).held == (13124 - 6 * 545) * 16
    unknown = read_logged(30000, 16, arch, 0, {}, 32768, "0.10.0", None, None)
    assert (unknown.held, unknown.high) == (157664, 194624)
    assert "the accelerator" in unknown.unknown
    given = read_logged(30000, 16, arch, 0, {"max_num_batched_tokens": 2048}, 32768, "0.10.0", None, None)
    assert (given.held, given.high) == (194528, 194624)


def test_chunked_attention_is_stored_whole_outside_0_10_0():
    scout = lookup_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert read_logged(600000, 16, scout, 0, {}, 131072, "0.11.0", None, None) is None
    assert read_logged(600000, 16, scout, 0, {}, 131072, "0.9.2", None, None) is None
    assert read_logged(600000, 16, scout, 0, {}, 131072, "0.10.0", None, None).held > 600000


def test_odd_input_reads_as_before_or_as_an_unknown_release():
    arch = lookup_model("google/gemma-3-1b-it")
    assert read_logged(8, 16, arch, 0, {}, 32768, "0.10.0", None, None) is None  # less than one block
    assert not read_logged(30000, 16, arch, 0, {}, 32768, "not-a-version", None, None).known
    huge = read_logged(10 ** 15, 16, arch, 0, {"max_num_batched_tokens": "x"}, None, "0.10.0", None, None)
    assert huge.held > 10 ** 15
    assert read_logged(30000, 16, arch, 0, {}, None, "0.22.0", None, None) is None  # no max_model_len to read


def test_vllm_prints_max_concurrency_from_0_20_1():
    args = (40 * 2 ** 30, 16, 4, 22, 2 * 1 * 256 * 2, 2 * 1 * 256 * 2, 512, 2048, 32768)
    old, rule = vllm_reported(*args, "0.20.0", False)
    new, rule_new = vllm_reported(*args, "0.20.1", False)
    assert rule.startswith("0.9.1-0.20.0") and rule_new == ">= 0.20.1: max concurrency x max_model_len"
    assert new > old
