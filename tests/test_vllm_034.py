"""vLLM 0.31-0.34 facts (read in the 0.28.0-0.34.0 wheels): 0.34.0's extensible KV cache (utilization 1.0,
sized after warmup and capture; ctxlint.physics.vllm_extensible), `--device-memory-utilization` from 0.31.0, and the
`--enable-x` / `--disable-x` pairs of 0.33.0's EnableDisableAction (flags_vllm.PAIRED). Each case failed before:
0.34.0 was estimated as 0.28.0 (a false CTX201 at 38,000 tokens on one L4), and the new spellings were not read."""
from __future__ import annotations

import pytest

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model
from ctxlint.physics.accelerators import lookup_accelerator
from helpers import run

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: llama}}
spec:
  template:
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:{tag}
        args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len={ctx}{extra}]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""

CASES = {
    # 0.34.0 on one L4: 21.95 GiB x 1.0 - CUDA context - margin max(1 GiB, 0.75 x peak) - the usual terms
    '38k': ('v0.34.0', 38000, '', (
        '{path}:11:66: CTX210 [warning] 38,000 is inside the estimated band 13,120-39,744 of what one request'
        " can hold in the unified KV pool (the pool's band 13,184-39,808, point 32,896; at the point one requ"
        "est holds 32,832, of its 32,896: one 64-token block is vLLM's null block): whether its context lengt"
        'h fits depends on terms the estimate knows only within a range (derived for meta-llama/Llama-3.1-8B '
        'on 1x L4, vllm: KV budget per GPU 4.02 GiB (instance memory 21.95 GiB - weights 14.96 GiB - activati'
        'on peak 0.53 GiB - non-torch 0.25 GiB - CUDA graphs 0.70 GiB - CUDA context + sizing margin 1.50 GiB'
        ') / 131,072 B per token per GPU = 32,896 tokens). Confirm with the engine\'s log line "GPU KV cache s'
        'ize: N tokens" (and "Available KV cache memory") and state it (the ctxlint.io/available-kv-gib or ct'
        'xlint.io/kv-pool-tokens annotations) for an exact verdict; or keep the promise at or below 13,120 (w'
        'ithin-estimate-band)',
    )),
    # --disable-extensible-kv-cache (0.34.0's inverse of the new flag): 0.92 x total, as 0.33
    'noext': ('v0.34.0', 38000, ', --disable-extensible-kv-cache', (
        '{path}:11:66: CTX201 [error] 38,000 > 36,032: the unified engine context length 38,000 exceeds its K'
        'V pool 30,784 (derived for meta-llama/Llama-3.1-8B on 1x L4, vllm: KV budget per GPU 3.76 GiB (insta'
        'nce memory 20.20 GiB - weights 14.96 GiB - activation peak 0.53 GiB - non-torch 0.25 GiB - CUDA grap'
        'hs 0.70 GiB) / 131,072 B per token per GPU = 30,784 tokens; band 13,504-36,096), which holds 30,720 '
        "tokens for one request at the estimate's point (of its 30,784: one 64-token block is vLLM's null blo"
        'ck) and at most 36,032 at the top of its band, by 1,968 tokens even at the top of its band; vLLM ref'
        'uses to start ("To serve at least one request with the model\'s max seq len ... KV cache is needed, w'
        'hich is larger than the available KV cache memory"). Lower the context length to 30,720, or add memo'
        'ry (more or larger accelerators, a higher memory fraction, an fp8 KV cache) (context-exceeds-kv-pool'
        ')',
    )),
    # --disable-chunked-prefill is --no-enable-chunked-prefill from 0.33.0: CTX304 reads it
    'nochunk': ('v0.34.0', 32768, ', --max-num-batched-tokens=8192, --disable-chunked-prefill', (
        '{path}:11:66: CTX210 [warning] 32,768 is inside the estimated band 1,344-33,536 of what one request '
        "can hold in the unified KV pool (the pool's band 1,408-33,600, point 25,728; at the point one reques"
        "t holds 25,664, of its 25,728: one 64-token block is vLLM's null block): whether its context length "
        'fits depends on terms the estimate knows only within a range (derived for meta-llama/Llama-3.1-8B on'
        ' 1x L4, vllm: KV budget per GPU 3.15 GiB (instance memory 21.95 GiB - weights 14.96 GiB - activation'
        ' peak 1.37 GiB - non-torch 0.25 GiB - CUDA graphs 0.70 GiB - CUDA context + sizing margin 1.53 GiB) '
        '/ 131,072 B per token per GPU = 25,728 tokens). Confirm with the engine\'s log line "GPU KV cache siz'
        'e: N tokens" (and "Available KV cache memory") and state it (the ctxlint.io/available-kv-gib or ctxl'
        'int.io/kv-pool-tokens annotations) for an exact verdict; or keep the promise at or below 1,344 (with'
        'in-estimate-band)',
        '{path}:11:98: CTX304 [error] 8,192 < 32,768: the unified max_num_batched_tokens 8,192 is below max_m'
        'odel_len with chunked prefill off (enable_chunked_prefill is false); vLLM refuses to start ("max_num'
        '_batched_tokens (8192) is smaller than max_model_len (32768)"). Raise max_num_batched_tokens to 32,7'
        '68, or enable chunked prefill (batched-tokens-below-model-len)',
    )),
    # --device-memory-utilization is 0.31.0's: 0.30.0's parser exits on it
    'devmem30': ('v0.30.0', 32768, ', --device-memory-utilization=0.5', (
        '{path}:11:66: CTX210 [warning] 32,768 is inside the estimated band 13,536-36,096 of what one request'
        " can hold in the unified KV pool (the pool's band 13,552-36,112, point 30,816; at the point one requ"
        "est holds 30,800, of its 30,816: one 16-token block is vLLM's null block): whether its context lengt"
        'h fits depends on terms the estimate knows only within a range (derived for meta-llama/Llama-3.1-8B '
        'on 1x L4, vllm: KV budget per GPU 3.76 GiB (instance memory 20.20 GiB - weights 14.96 GiB - activati'
        'on peak 0.53 GiB - non-torch 0.25 GiB - CUDA graphs 0.70 GiB) / 131,072 B per token per GPU = 30,816'
        ' tokens). Confirm with the engine\'s log line "GPU KV cache size: N tokens" (and "Available KV cache '
        'memory") and state it (the ctxlint.io/available-kv-gib or ctxlint.io/kv-pool-tokens annotations) for'
        ' an exact verdict; or keep the promise at or below 13,536 (within-estimate-band)',
        '{path}:11:73: CTX301 [error] vllm 0.30.0 would refuse to start: unrecognized arguments: --device-mem'
        'ory-utilization (a spelling from 0.31.0 on: earlier releases take --gpu-memory-utilization) (engine-'
        'rejects-value)',
    )),
    # the whole --enable-extensible-kv-cache flag is 0.34.0's
    'ext33': ('v0.33.0', 32768, ', --enable-extensible-kv-cache', (
        '{path}:11:66: CTX210 [warning] 32,768 is inside the estimated band 13,536-36,096 of what one request'
        " can hold in the unified KV pool (the pool's band 13,552-36,112, point 30,816; at the point one requ"
        "est holds 30,800, of its 30,816: one 16-token block is vLLM's null block): whether its context lengt"
        'h fits depends on terms the estimate knows only within a range (derived for meta-llama/Llama-3.1-8B '
        'on 1x L4, vllm: KV budget per GPU 3.76 GiB (instance memory 20.20 GiB - weights 14.96 GiB - activati'
        'on peak 0.53 GiB - non-torch 0.25 GiB - CUDA graphs 0.70 GiB) / 131,072 B per token per GPU = 30,816'
        ' tokens). Confirm with the engine\'s log line "GPU KV cache size: N tokens" (and "Available KV cache '
        'memory") and state it (the ctxlint.io/available-kv-gib or ctxlint.io/kv-pool-tokens annotations) for'
        ' an exact verdict; or keep the promise at or below 13,536 (within-estimate-band)',
        '{path}:11:73: CTX301 [error] vllm 0.33.0 would refuse to start: unrecognized arguments: --enable-ext'
        'ensible-kv-cache (a spelling from 0.34.0 on: earlier releases have no such flag) (engine-rejects-valu'
        'e)',
    )),
}

@pytest.mark.parametrize("name", sorted(CASES))
def test_vllm_034_facts_exact_output(tmp_path, name):
    tag, ctx, extra, expected = CASES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(DEPLOY.format(tag=tag, ctx=ctx, extra=extra))
    out = run(["check", "--isolated", str(path)]).out
    assert out == "".join(line.format(path=path) + "\n" for line in expected)


def test_device_memory_utilization_is_read_as_gpu_memory_utilization(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(DEPLOY.format(tag="v0.34.0", ctx=32768, extra=", --device-memory-utilization=0.5"))
    out = run(["check", "--isolated", str(path)]).out
    assert "CTX209" in out and "instance memory 10.98 GiB" in out  # 21.95 GiB x 0.5: the alias is read


@pytest.mark.parametrize("tag", ["v0.30.0", "v0.34.0", "latest"])
def test_device_is_no_abbreviation_of_a_later_alias(tmp_path, tag):
    # vLLM 0.28-0.30 read `--device` as `--device-ids`, 0.31 on as ambiguous: never as the 0.31 alias
    # `--device-memory-utilization` (which made `cpu` an invalid float); a word ctxlint's table cannot place
    path = tmp_path / "d.yaml"
    path.write_text(DEPLOY.format(tag=tag, ctx=4096, extra=", --device, cpu"))
    assert "CTX301" not in run(["check", "--isolated", str(path)]).out


def _l4(version, settings=None):
    return estimate(CapacityInput(arch=lookup_model("meta-llama/Llama-3.1-8B-Instruct"), engine="vllm",
                                  accelerator=lookup_accelerator("L4"), engine_version=version,
                                  settings=settings or {}, context_length=32768))


def test_explicit_utilization_keeps_its_meaning_and_the_margin_counts_only_beyond_it():
    # 0.9 leaves 2.2 GiB of an L4 outside the instance, more than the context and margin: the 0.33 arithmetic
    # less nothing; 1.0 (the default) takes them from the whole device
    util = {"gpu_memory_utilization": 0.9}
    assert _l4("0.34.0", util).kv_budget_bytes_per_gpu == _l4("0.33.0", util).kv_budget_bytes_per_gpu
    assert _l4("0.34.0").kv_budget_bytes_per_gpu > _l4("0.33.0").kv_budget_bytes_per_gpu


def test_the_cases_vllm_turns_it_off_size_as_0_33_does():
    for settings in ({"enable_extensible_kv_cache": False}, {"enable_elastic_ep": True}):
        assert _l4("0.34.0", settings).kv_budget_bytes_per_gpu == _l4("0.33.0", settings).kv_budget_bytes_per_gpu
    # a KV connector decides (NIXL without an IMEX channel: off): the point stays the estimate-based one, the band
    # reaches the extensible sizing's
    pd = {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}
    maybe, off, on = _l4("0.34.0", pd), _l4("0.33.0", pd), _l4("0.34.0")
    assert maybe.kv_budget_bytes_per_gpu == off.kv_budget_bytes_per_gpu
    assert maybe.kv_budget_high == pytest.approx(on.kv_budget_high)
