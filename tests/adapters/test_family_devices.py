"""A device label that names a family sold in several memory sizes and no size (a site's `a100` in a Slurm gres
or a node label, `Tesla-V100`) is any of those sizes: a device whose memory is a band from the smallest size's
figure to the largest's top. A verdict stands only where every size agrees; CTX203 only where the weights exceed
even the largest. Before, such a label named no device (CTX208, at most a memory need)."""
from __future__ import annotations

import pytest

from ctxlint.adapters.hardware import canonical_type, site_type
from ctxlint.physics.accelerators import family_device, lookup_accelerator, top_smi_total_mib
from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.models import lookup_model
from helpers import run

A100 = "A100 (40 or 80 GB: the label names no size)"
V100 = "V100 (16 or 32 GB: the label names no size)"


def audit_row(path) -> list:
    return run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()[1].split(",")


def check(path) -> str:
    return run(["check", "--isolated", "-q", str(path)]).out


def test_a_family_spans_its_sizes_from_the_smallest_figure_to_the_largest_top():
    small, large = lookup_accelerator("A100-40GB"), lookup_accelerator("A100-SXM4-80GB")
    family = family_device("a100")
    assert (family.name, family.memory_bytes, family.memory_high, family.members, family.exact) == (
        A100, small.memory_bytes, large.memory_high, ("A100-40GB", "A100-SXM4-80GB"), False)
    assert (family.nvidia_smi_total_mib, top_smi_total_mib(family)) == (40960, 81920)
    assert lookup_accelerator(A100) is family  # the name a Val carries finds it again
    p100 = family_device("P100")
    assert (p100.memory_bytes, p100.memory_high) == (12_000_000_000, 17179869184)  # 12 GB .. 16 GiB


@pytest.mark.parametrize("word, device", [
    ("a100", A100), ("Tesla-V100", V100), ("nvidia-a100-sxm4", A100), ("v100_pcie", V100),
    # a label that names the size is that card, as before
    ("A100-SXM4-80GB", "A100-SXM4-80GB"), ("nvidia-a100-80gb", "A100-SXM4-80GB"), ("a100-80gb", "A100-SXM4-80GB"),
    ("a100-40gb", "A100-40GB"), ("V100-SXM2-32GB", "V100-32GB"),
])
def test_a_sites_word_names_the_family_or_the_sized_card(word, device):
    assert site_type(word)[0] == device


def test_names_with_a_fixed_meaning_keep_it():
    # SkyPilot's `A100` and GKE's `nvidia-tesla-a100` are the 40 GB card, GKE's `nvidia-tesla-v100` the 16 GB one
    assert [canonical_type(n)[0] for n in ("A100", "nvidia-tesla-a100", "nvidia-tesla-v100")] == [
        "A100-40GB", "A100-40GB", "V100-16GB"]


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_band_runs_from_the_smallest_sizes_estimate_to_the_largest_sizes_top(engine):
    def estimate(device):
        return compute(CapacityInput(arch=lookup_model("Qwen/Qwen2.5-7B-Instruct"), engine=engine, accelerator=device,
                                     accelerator_count=1, tp=1, engine_version="0.10.1" if engine == "vllm" else "0.5.2",
                                     settings={}, context_length=32768))
    family, small, large = estimate(family_device("v100")), estimate("V100-16GB"), estimate("V100-32GB")
    assert (family.pool_tokens, family.pool_low) == (small.pool_tokens, small.pool_low)
    # SGLang's defaults at the top are the 32 GB card's (its own nvidia-smi Total), not the 16 GB card's
    assert family.pool_high == large.pool_high > small.pool_high


POD = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: srv}}
spec:
  template:
    spec:
      {where}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.5
        args: ["--model", "{model}", "--max-model-len", "{context}"]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
SELECTOR = "nodeSelector: {gpu-type: a100}"
AFFINITY = ("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
            "[{matchExpressions: [{key: machine.cluster.vke.volcengine.com/gpu-name, operator: In, "
            "values: [Tesla-V100]}]}]}}}")


@pytest.mark.parametrize("where, model, context, verdict", [
    # fits on the 40 GB card, so on both
    (SELECTOR, "meta-llama/Llama-3.1-8B-Instruct", 16384, ("157856", "fits")),
    # the weights fit the 80 GB card only: within band, no verdict either way
    (SELECTOR, "Qwen/Qwen2.5-32B-Instruct", 8192, ("0", "within band")),
    # exceeds even on the 80 GB card
    (SELECTOR, "Qwen/Qwen2.5-32B-Instruct", 32768, ("0", "exceeds")),
    (AFFINITY, "Qwen/Qwen2.5-3B-Instruct", 65536, ("205728", "fits")),
    (AFFINITY, "Qwen/Qwen2.5-7B-Instruct", 65536, ("0", "within band")),
    (AFFINITY, "meta-llama/Llama-3.1-8B-Instruct", 131072, ("0", "exceeds")),
    (AFFINITY, "Qwen/Qwen2.5-32B-Instruct", 8192, ("", "weights do not fit")),  # 61 GiB > 32 GiB
])
def test_a_kubernetes_label_naming_a_family_gives_a_verdict_only_where_every_size_agrees(
        tmp_path, where, model, context, verdict):
    path = tmp_path / "srv.yaml"
    path.write_text(POD.format(where=where, model=model, context=context))
    row = audit_row(path)
    assert (row[9], row[14]) == verdict


def test_the_verdict_on_a_family_names_its_sizes(tmp_path):
    path = tmp_path / "srv.yaml"
    path.write_text(POD.format(where=SELECTOR, model="Qwen/Qwen2.5-32B-Instruct", context=8192))
    assert check(path) == (
        f"{path}:11:76: CTX210 [warning] 8,192 is inside the estimated band 0-30,800 of what one request can hold in "
        "the unified KV pool (the pool's band 0-30,816, point 0; one 16-token block is vLLM's null block): whether "
        "its context length fits depends on which of A100-40GB and A100-SXM4-80GB the device is (the label names "
        "no size), and on terms the estimate knows only within a range (derived for Qwen/Qwen2.5-32B-Instruct on 1x "
        f"{A100}, vllm: KV budget per GPU -27.02 GiB (instance memory 35.45 GiB - weights 61.03 GiB - activation "
        "peak 0.75 GiB - non-torch 0.70 GiB) / 262,144 B per token per GPU = 0 tokens). Confirm with the engine's "
        "log line \"GPU KV cache size: N tokens\" (and \"Available KV cache memory\") and state it (the "
        "ctxlint.io/available-kv-gib or ctxlint.io/kv-pool-tokens annotations) for an exact verdict; at the band's "
        "low end not one KV block fits and the engine would not start (within-estimate-band)\n")


BATCH = "#!/bin/bash\n#SBATCH --gres=gpu:{gres}\nvllm serve {model} --max-model-len 8192\n"


def test_weights_beyond_the_largest_size_are_ctx203_and_say_so(tmp_path):
    path = tmp_path / "serve.sbatch"
    path.write_text(BATCH.format(gres="a100:1", model="meta-llama/Llama-3.1-70B-Instruct"))
    assert check(path) == (
        f"{path}:2:20: CTX203 [error] 131.42 GiB > 79.26 GiB: the weights of meta-llama/Llama-3.1-70B per GPU "
        f"(tensor 1 x pipeline 1) exceed the memory of one {A100} even as its largest size, A100-SXM4-80GB, before "
        "any KV cache. Use at least 2 GPUs (4 of its smallest size, A100-40GB) with tensor/pipeline parallelism to "
        "match, larger accelerators, or a quantized checkpoint (weights-exceed-memory)\n")


@pytest.mark.parametrize("line", [
    "#!/bin/bash\n#SBATCH --gres=gpu:a100:1\nvllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n",
    "#!/bin/bash\nsrun --gres=gpu:a100:1 vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n",
])
def test_weights_that_fit_only_the_largest_size_are_within_band_not_ctx203(tmp_path, line):
    path = tmp_path / "serve.sbatch"
    path.write_text(line)
    row = audit_row(path)
    assert (row[9], row[14]) == ("0", "within band")  # was: no device, a memory need only


KARPENTER = "nodeSelector: {{karpenter.k8s.aws/instance-gpu-name: {name}{memory}}}"


@pytest.mark.parametrize("where, verdict", [
    # AWS's instance-gpu-name `a100` is p4d's A100 40 GB and p4de's A100 80 GB alike: the family, not the 40 GB
    # card (was CTX203: 61.03 GiB > 39.39 GiB, though p4de's 80 GB card loads the weights)
    (KARPENTER.format(name="a100", memory=""), ("0", "within band")),
    (KARPENTER.format(name="a100", memory="").replace("karpenter.k8s.aws", "eks.amazonaws.com"),
     ("0", "within band")),
    # instance-gpu-memory beside it states the size: p4de's 81920 MiB, p4d's 40960 MiB
    (KARPENTER.format(name="a100", memory=", karpenter.k8s.aws/instance-gpu-memory: '81920'"), ("27024", "fits")),
    (KARPENTER.format(name="a100", memory=", karpenter.k8s.aws/instance-gpu-memory: 40960"),
     ("", "weights do not fit")),
])
def test_aws_instance_gpu_name_a100_is_either_size_unless_its_memory_says(tmp_path, where, verdict):
    path = tmp_path / "srv.yaml"
    path.write_text(POD.format(where=where, model="Qwen/Qwen2.5-32B-Instruct", context=8192))
    row = audit_row(path)
    assert (row[9], row[14]) == verdict


@pytest.mark.parametrize("beside, verdict", [
    ("node.kubernetes.io/instance-type: p4de.24xlarge", ("27024", "fits")),
    ("karpenter.k8s.aws/instance-family: p4de", ("27024", "fits")),
    ("gpu-type: A100-SXM4-80GB", ("27024", "fits")),
    ("node.kubernetes.io/instance-type: p4d.24xlarge", ("", "weights do not fit")),
])
def test_a_label_beside_the_family_word_that_names_the_size_settles_it(tmp_path, beside, verdict):
    path = tmp_path / "srv.yaml"
    where = f"nodeSelector: {{karpenter.k8s.aws/instance-gpu-name: a100, {beside}}}"
    path.write_text(POD.format(where=where, model="Qwen/Qwen2.5-32B-Instruct", context=8192))
    row = audit_row(path)
    assert (row[9], row[14]) == verdict
