"""DeepSeek-V4-Pro SGLang recipes of srt-slurm: the nightly image's build and the roles' environment reach the pool
estimate (physics.dsv4_sglang). The recipe is written after NVIDIA/srt-slurm-recipes
recipes/multi-node/DeepSeek-V4-Pro/GB300/8k1k/sglang/disagg/disagg-10p1d-dep4-dep16.yaml: a
lmsysorg/sglang nightly-dev image, SGLANG_OPT_USE_ONLINE_COMPRESS in each role's environment."""
from __future__ import annotations

import json

from helpers import run
from tests.adapters.kit import adapt, arg

V4 = """\
name: "v4-pro-pd"

model:
  path: "hf:deepseek-ai/DeepSeek-V4-Pro"
  container: "lmsysorg/sglang:nightly-dev-cu13-20260520-425dffbd"
  precision: "fp4"

resources:
  gpu_type: "gb300"
  gpus_per_node: 4
  prefill_nodes: 1
  prefill_workers: 1
  gpus_per_prefill: 4
  decode_nodes: 4
  decode_workers: 1
  gpus_per_decode: 16

backend:
  type: sglang
  prefill_environment:
    SGLANG_OPT_USE_ONLINE_COMPRESS: "1"
  decode_environment:
    SGLANG_OPT_USE_ONLINE_COMPRESS: "1"
  sglang_config:
    prefill:
      served-model-name: "deepseek-ai/DeepSeek-V4-Pro"
      tensor-parallel-size: 4
      data-parallel-size: 4
      expert-parallel-size: 4
      enable-dp-attention: true
      mem-fraction-static: 0.90
    decode:
      served-model-name: "deepseek-ai/DeepSeek-V4-Pro"
      tensor-parallel-size: 16
      data-parallel-size: 16
      expert-parallel-size: 16
      enable-dp-attention: true
      mem-fraction-static: 0.94
      swa-full-tokens-ratio: 0.056
      context-length: 9216
"""


def _pools(tmp_path, text):
    path = tmp_path / "v4.yaml"
    path.write_text(text)
    [dep] = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]
    pools = [(dep[k] or {}).get("tokens") for k in ("prefill_pool", "decode_pool")]
    return pools, dep["verdict"], dep["why_unknown"]


def test_the_nightly_build_and_the_environment_are_read():
    [dep] = adapt(V4, "v4.yaml").deployments
    assert dep.engine.version is None and dep.engine.build.value == "425dffbd"
    assert dep.engine.build.source.line == 5 and dep.engine.build.source.col == 14
    prefill = dep.roles[0]
    online = arg(prefill, "SGLANG_OPT_USE_ONLINE_COMPRESS")
    assert (online.value, online.source.line, online.source.col) == ("1", 21, 37)


def test_a_v4_pool_for_the_builds_read(tmp_path):
    # 425dffbd counts the 62 compress_ratios entries: the prefill's 0.1 x 584 x 62 + ... with the online c128
    # compressor 11,201.04 B a full token, without it 23,749.84 (its c128 states' 0.1 x 4,096 x 31 a token)
    assert _pools(tmp_path, V4) == ([2887680, 22796032], "fits", None)
    off = V4.replace('SGLANG_OPT_USE_ONLINE_COMPRESS: "1"', 'SGLANG_OPT_USE_ONLINE_COMPRESS: "0"')
    assert _pools(tmp_path, off) == ([1361664, 12608512], "fits", None)


def test_a_build_not_read_stays_unknown(tmp_path):
    pools, verdict, why = _pools(tmp_path, V4.replace("425dffbd", "1234abcd"))
    assert (pools, verdict) == ([None, None], "unknown")
    assert "the nightly build 1234abcd: its DeepSeek-V4 pool sizing was not read (read: 0.5.12, 0.5.12.post1, " \
        "0.5.13, 0.5.13.post1, 0.5.14, and the nightly builds 425dffbd, 14f81a67;" in why


def test_a_memory_need_for_the_builds_read(tmp_path):
    path = tmp_path / "v4.yaml"
    path.write_text("\n".join(line for line in V4.splitlines() if "gpu_type" not in line) + "\n")
    out = [line[len(str(path)):] for line in run(["check", "--isolated", str(path)]).out.splitlines()]
    assert out[0].startswith(":25:7: CTX208 [info] KV pool of prefill not declared and not derivable: no accelerator "
                             "type (or available_kv_gib) is given (4 per replica, type unknown); holding one request "
                             "of 1,048,576 tokens needs >= 255.3 (band 253.9-260.9) GiB per GPU at TP 4 (")
