"""KAITO's node estimate, by release (kaito_nodes.py), against KAITO's own tests and presets."""
from __future__ import annotations

import math

import pytest

from ctxlint.adapters.kaito_nodes import Ask, estimate, explicit_max_model_len, gib_quantity, node_count

GIB = 1 << 30


def test_the_estimate_meets_kaitos_own_tests():
    # kaito-project/kaito@056b8280b1a8debf644bc6f4399e913a1f9c7e70:pkg/workspace/estimator/nodesestimator/
    # estimator_test.go with pkg/utils/test/test_model.go: test-qwen2.5-coder-32b-instruct (62.5Gi, 163840 bytes
    # per token) on Standard_NC24ads_A100_v4 (1 GPU, 80Gi) asking Count 3 -> 2 nodes
    assert estimate(gib_quantity("62.5Gi"), 163840, 1, 80 * GIB, 2048, 1.05) == (2, "")
    # test-model (8Gi, no KV) on Standard_NC96ads_A100_v4 (4 GPUs, 320Gi) asking 4 -> 1
    assert estimate(8 * GIB, 0, 4, 320 * GIB, 2048, 1.05) == (1, "")
    # MIG slices (one GPU of the profile's GiB): 2g.24gb and 3g.47gb fit, 1g.10gb needs 2 slices (refused), and
    # a 131072-token context changes nothing for a model without KV bytes
    assert [estimate(8 * GIB, 0, 1, gib * GIB, 2048, 1.05)[0] for gib in (24, 47, 10)] == [1, 1, 2]
    assert estimate(8 * GIB, 0, 1, 24 * GIB, 131072, 1.05) == (1, "")
    nodes, why = estimate(8 * GIB, 1 << 20, 1, 24 * GIB, 131072, 1.05)  # 128 GiB of KV: nothing left
    assert nodes is None and why.startswith("24 GiB per GPU x 0.84 leaves nothing")
    assert gib_quantity("61.03Gi") == math.ceil(61.03 * GIB) and gib_quantity("61.03G") is None


@pytest.mark.parametrize("text,value", [
    # pkg/utils/config_parser_test.go TestParseExplicitMaxModelLen
    ("vllm:\n  max-model-len: 4096\n", 4096), ("vllm:\n  max-model-len: 131072\n", 131072),
    ("other:\n  key: value\n", None), ("vllm:\n  tensor-parallel-size: 4\n", None), ("vllm:\n  max-model-len:\n", None),
    ("vllm:\n  max-model-len: 0\n", None), ("vllm:\n  max-model-len: -1\n", None),
    ("vllm:\n  max-model-len: abc\n", None),
    ("vllm:\n  tensor-parallel-size: 4\ntransformers:\n  max-model-len: 1024\n", None), ("", None),
    # the Go scanner reads the line, not YAML: a quoted or commented value is not an Atoi integer
    ("vllm:\n  max-model-len: '4096'\n", None), ("vllm:\n  max-model-len: 4096 # ctx\n", None),
    ("max_probe_steps: 6\n\nvllm:\n  # comment\n  max-model-len: 8192\n", 8192),
])
def test_the_context_of_the_estimate(text, value):
    assert explicit_max_model_len(text) == value


def test_releases_that_disagree_leave_the_count_unknown():
    qwen = node_count(Ask(5, "qwen2.5-coder-32b-instruct", "Standard_NC24ads_A100_v4"))
    # v0.5.0-v0.6.x resource.count (1), v0.7.0-v0.10.x 62.25 GiB < 80 x 0.84 - 2.3 - 0.5 GiB, then /1.05: 2
    assert (qwen.nodes, qwen.split, qwen.on) == (None, True, "instance")
    assert qwen.account == "KAITO v0.5.0 to v0.10.x: 1 node; KAITO v0.11.0 and later: 2 nodes"
    # a v1beta1 InferenceSet needs v0.11.0: the estimate of the releases that serve it
    assert node_count(Ask(11, "qwen2.5-coder-32b-instruct", "Standard_NC24ads_A100_v4")).nodes == 2
    # DeepSeek-V3 with count 6 on 2 x 94 GiB VMs: v0.6.x runs min(6, 960Gi / 188Gi -> 6), the estimate 5, and
    # v0.11.x refuses 5 nodes
    v3 = node_count(Ask(5, "deepseek-v3-0324", "Standard_NC80adis_H100_v5", count=6))
    assert (v3.nodes, v3.split) == (None, True)
    assert v3.account == "KAITO v0.5.0 to v0.6.x: 6 nodes (resource.count); KAITO v0.7.0 to v0.10.x and v0.12.0 " \
        "and later: 5 nodes; KAITO v0.11.x refuses it: it estimates 5 nodes and allows at most 3"
    # before v0.5.0 (a v1alpha1 Workspace can run there) it was no preset yet
    assert node_count(Ask(0, "deepseek-v3-0324", "Standard_NC80adis_H100_v5", count=6)).account.startswith(
        "KAITO before v0.5.0 refuses it: deepseek-v3-0324 is not a preset; ")
    # Mistral Large 3 came with v0.8.0: every release that runs it runs 5 nodes
    large = node_count(Ask(5, "mistral-large-3-675b-instruct", "Standard_NC80adis_H100_v5", count=6))
    assert (large.nodes, large.whole) == (5, False)
    # Llama 3.3 70B with count 2 on 2 x 80 GiB VMs: 320Gi fills 2 of them, and every estimate says 2
    llama = node_count(Ask(5, "llama-3.3-70b-instruct", "Standard_NC48ads_A100_v4", count=2, context=16384))
    assert (llama.nodes, llama.whole) == (2, True)
    # ... but a larger count was only lowered to that where the memory table knew the VM (not A10s before v0.6.0)
    assert node_count(Ask(5, "llama-3.1-8b-instruct", "Standard_NV72ads_A10_v5", count=2)).on == "count"
    # KAITO's catalog gives gpt-oss-120b 121.54Gi from v0.11.0, the v0.7-v0.10 preset 60.77Gi
    assert node_count(Ask(5, "gpt-oss-120b", "Standard_NC24ads_A100_v4")).account == \
        "KAITO v0.5.0 to v0.6.x refuses it: gpt-oss-120b is not a preset; KAITO v0.7.0 to v0.10.x: 1 node; " \
        "KAITO v0.11.0 and later: 3 nodes"
    # the context the estimate reads is in a ConfigMap the file does not hold
    assert node_count(Ask(11, "phi-4", "Standard_NC24ads_A100_v4", context=None)).on == "config"
    # v0.5.0-v0.9.x look the instance type up case-sensitively
    lower = node_count(Ask(8, "phi-4-mini-instruct", "standard_nc24ads_a100_v4"))
    assert lower.nodes == 1 and "KAITO v0.8.0 to v0.9.x refuse it: its SKU table spells" in lower.account


def test_what_no_release_runs_is_refused_and_unrecorded_sizes_are_unknown():
    falcon = node_count(Ask(11, "falcon-7b", "Standard_NC24ads_A100_v4"))
    assert (falcon.nodes, falcon.refused, falcon.on) == (None, True, "preset")
    hub = node_count(Ask(11, "deepseek-ai/DeepSeek-V3", "Standard_NC24ads_A100_v4"))
    assert (hub.nodes, hub.refused) == (None, False) and "Hugging Face Hub" in hub.account
    assert node_count(Ask(12, "llama-3.3-70b-instruct", mig="3g.40gb")).refused  # 134 GiB in a 40 GiB slice
    assert node_count(Ask(12, "phi-4-mini-instruct", mig="3g.41gb")).refused  # not a profile the webhook knows
    assert node_count(Ask(12, "phi-4-mini-instruct", mig="2g.24gb")).nodes == 1
    byo = node_count(Ask(12, "llama-3.1-8b-instruct", accelerators=2))
    assert (byo.nodes, byo.on) == (None, "partition") and "BYO nodes report" in byo.account


def test_t4_sizes_until_v0_12():
    # kaito-project/kaito pkg/sku/azure_sku_handler.go: Standard_NC64as_T4_v3 (4 GPUs, 64 GiB) from v0.3.2 to v0.11.0
    # (@7545aa21), gone at v0.12.0 (@0894eb2b, #2185), where a vLLM preset's node estimate fails on it
    from ctxlint.adapters.hardware import instance_gpus
    from ctxlint.loader import parse_text

    phi = node_count(Ask(7, "phi-3-mini-4k-instruct", "Standard_NC64as_T4_v3"))
    assert (phi.nodes, phi.split, phi.refused) == (1, False, False)
    assert phi.account == "KAITO v0.7.0 to v0.11.x: 1 node; KAITO v0.12.0 and later refuses it: v0.12.0 dropped " \
        "Standard_NC64as_T4_v3 from its SKU table (kaito-project/kaito#2185)"
    # a file that needs v0.12.0 (a partition, say) runs on no release
    assert node_count(Ask(12, "phi-3-mini-4k-instruct", "Standard_NC64as_T4_v3")).refused
    # the case-sensitive table of v0.7.x to v0.9.x refuses another spelling, as it does for any size
    lower = node_count(Ask(7, "phi-3-mini-4k-instruct", "standard_nc8as_t4_v3")).account
    assert lower.startswith("KAITO v0.7.0 to v0.9.x refuse it: its SKU table spells the instance type "
                            "Standard_NC8as_T4_v3 and is case-sensitive; KAITO v0.10.0 to v0.11.x: 1 node")
    node = parse_text("t: Standard_NC64as_T4_v3\n", "x.yaml").documents[0].root.get("t")
    kind, per_vm = instance_gpus(node, "x.yaml")
    assert (kind.value, per_vm.value) == ("T4", 4)


def test_v100_sizes_until_v0_9_and_m60_sizes_until_v0_12():
    # kaito-project/kaito pkg/sku/azure_sku_handler.go: the V100 sizes (Standard_NC24rs_v3: 4 GPUs, 64 GiB) and the
    # NV M60 sizes from v0.5.0 to v0.8.1 (@d56734a0), gone at v0.9.0 (@18a0177e, #1780); the NVv3 M60 sizes
    # (Standard_NV48s_v3: 4 GPUs, 32 GiB) to v0.11.0 (@7545aa21), gone at v0.12.0 (#2185). Before, each was "a table
    # entry ctxlint does not record": unknown for every release
    from ctxlint.adapters.hardware import instance_gpus
    from ctxlint.loader import parse_text

    v100 = node_count(Ask(7, "phi-3-mini-4k-instruct", "Standard_NC24s_v3"))
    assert (v100.nodes, v100.refused) == (1, False)
    assert v100.account == "KAITO v0.7.0 to v0.8.x: 1 node; KAITO v0.9.0 and later refuse it: v0.9.0 dropped " \
        "Standard_NC24s_v3 from its SKU table (kaito-project/kaito#1780)"
    # 134 GiB of Llama 3.3 70B over 16 GiB V100s: count 4 of 4-GPU VMs, and every release that has the size says 4
    llama = node_count(Ask(5, "llama-3.3-70b-instruct", "Standard_NC24rs_v3", count=4))
    assert llama.nodes == 4 and llama.account.startswith("KAITO v0.5.0 to v0.8.x: 4 nodes; ")
    assert node_count(Ask(9, "phi-3-mini-4k-instruct", "Standard_NV24")).refused  # a v0.9.0 object: no release
    # 8 GiB M60s: the estimate needs 4 one-GPU VMs for Llama 3.1 8B, which v0.11.x's limit of 3 refuses
    m60 = node_count(Ask(5, "llama-3.1-8b-instruct", "Standard_NV12s_v3"))
    assert m60.account == (
        "KAITO v0.5.0 to v0.6.x: 1 node (resource.count); KAITO v0.7.0 to v0.10.x: 4 nodes; KAITO v0.11.x refuses "
        "it: it estimates 4 nodes and allows at most 3; KAITO v0.12.0 and later refuses it: v0.12.0 dropped "
        "Standard_NV12s_v3 from its SKU table (kaito-project/kaito#2185)")
    node = parse_text("t: Standard_NC12s_v3\n", "x.yaml").documents[0].root.get("t")
    kind, per_vm = instance_gpus(node, "x.yaml")
    assert (kind.value, per_vm.value) == ("V100-16GB", 2)
