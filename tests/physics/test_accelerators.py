"""Accelerator name tolerance and memory numbers (engines.md §11)."""
from __future__ import annotations

import pytest

from ctxlint.physics.accelerators import MIB, lookup_accelerator

NAMES = [("H100", "H100-SXM-80GB"), ("H100-80GB", "H100-SXM-80GB"), ("h100-sxm", "H100-SXM-80GB"),
         ("NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"), ("nvidia-h100-80gb", "H100-SXM-80GB"),
         ("NVIDIA H100 80GB HBM3", "H100-SXM-80GB"), ("H200", "H200"), ("nvidia-h200-141gb", "H200"),
         ("B200", "B200"), ("MI300X", "MI300X"), ("L40S", "L40S"), ("nvidia-l4", "L4"),
         ("A100-40GB", "A100-40GB"), ("nvidia-tesla-a100", "A100-40GB"), ("nvidia-a100-80gb", "A100-SXM4-80GB"),
         ("A10G", "A10G"), ("T4", "T4"), ("nvidia-tesla-t4", "T4"), ("RTX-4090", "RTX-4090"),
         ("A100-80GB-MIG-3g.40gb", "A100-80GB-MIG-3g.40gb"), ("H100-MIG-1g.10gb", "H100-MIG-1g.10gb"),
         ("MI250X", "MI250X-GCD"), ("H100 NVL", "H100-NVL"),
         # the names GKE's TPU node labels, KubeAI's resource profiles and SkyPilot use (issue 10)
         ("tpu-v6e-slice", "TPU-v6e"), ("tpu-v5-lite-podslice", "TPU-v5e"), ("TPU-v5e", "TPU-v5e"),
         ("tpu-v5p-slice", "TPU-v5p"), ("RTX4070-8GB", "RTX-4070-8GB"), ("RTX-4070", "RTX-4070"),
         ("B100", "B100"), ("GB300", "GB300"), ("nvidia-l20", "L20"), ("RTX-PRO-6000", "RTX-PRO-6000-Blackwell"),
         ("MI308X", "MI308X"),
         # SkyPilot's RTX names have no hyphen (sky/catalog/data_fetchers/fetch_runpod.py format_gpu_name)
         ("RTX4090", "RTX-4090"), ("RTX3090", "RTX-3090"), ("RTXA6000", "RTX-A6000"), ("RTX5090", "RTX-5090"),
         ("RTXPRO6000", "RTX-PRO-6000-Blackwell"), ("RTX6000-Ada", "RTX-6000-Ada"),
         # SkyPilot on Kubernetes names an RTX 4060 node `RTX4060` (umesh-khatiwada/skypilot-gpu-manage-k8s@
         # 251279320d5586a38d3bcaae71b6ed113eb8ef74:nvidia-setup/skypilot/04_vllm_serve.yaml): 8 GB, laptop part too
         ("RTX4060", "RTX-4060"), ("GeForce-RTX-4060-Laptop-GPU", "RTX-4060"),
         # SkyPilot's RunPod catalog names RTXA5000 and RTXA4000 (Adam-D-Lewis/skyllm@a989811d1c0e2eba9dcbc60cd1d5aa8a5ddbba29:
         # sky/sky.yaml asks for {RTX4090:1, RTX3090:1, RTXA5000:1, ...}); nvidia-smi says `NVIDIA RTX A5000`
         ("RTXA5000", "RTX-A5000"), ("NVIDIA RTX A5000", "RTX-A5000"), ("RTXA4000", "RTX-A4000"),
         ("nvidia-rtx-a4000", "RTX-A4000"),
         # nvidia-smi's name (and GPU Feature Discovery's label) count the Grace CPU's LPDDR5X: 96 GB HBM3
         ("NVIDIA-GH200-480GB", "GH200-96GB"), ("NVIDIA GH200 480GB", "GH200-96GB"), ("GH200", "GH200-96GB"),
         # named by the official recipes (vLLM recipes, sgl-cookbook): not in the catalog before
         ("H800", "H800-80GB"), ("NVIDIA H800 80GB HBM3", "H800-80GB"), ("NVIDIA-H800-PCIe", "H800-80GB"),
         ("MI350X", "MI350X"), ("AMD Instinct MI350X", "MI350X"), ("GB10", "GB10"), ("NVIDIA GB10", "GB10"),
         ("DGX Spark", "GB10")]


@pytest.mark.parametrize("name,expected", NAMES)
def test_names(name: str, expected: str) -> None:
    assert lookup_accelerator(name).name == expected


def test_exact_cuda_totals() -> None:
    h100 = lookup_accelerator("H100")
    assert h100.memory_bytes == 85_045_477_376 and h100.exact          # 81106 MiB
    assert lookup_accelerator("A100-80GB").memory_bytes == 85_100_068_864
    assert lookup_accelerator("H100 NVL").memory_bytes == 99_861_594_112
    assert lookup_accelerator("L4").memory_bytes == 23_570_219_008
    assert lookup_accelerator("L40S").memory_bytes == 47_803_596_800
    assert lookup_accelerator("MI300X").memory_bytes == 196_592 * MIB
    assert not lookup_accelerator("H200").exact


def test_recipe_devices_memory() -> None:
    # H800: H100 SXM's 80 GB board; MI350X: MI355X's 288 GiB package; GB10 (DGX Spark): CUDA's share of its
    # 128 GB unified memory, which the OS and the CPU's processes share (its note says so)
    assert lookup_accelerator("H800").memory_bytes == lookup_accelerator("H100").memory_bytes
    assert lookup_accelerator("MI350X").memory_bytes == lookup_accelerator("MI355X").memory_bytes
    gb10 = lookup_accelerator("DGX-Spark")
    assert round(gb10.memory_gib, 2) == 121.63 and not gb10.exact and "unified memory" in gb10.note


def test_mig_uses_slice_memory() -> None:
    assert lookup_accelerator("A100-80GB-MIG-3g.40gb").memory_bytes < lookup_accelerator("A100-80GB").memory_bytes // 2 + 1


def test_user_defined() -> None:
    extra = {"my-card": {"memory_gib": 12}, "Other Card": {"memory_gb": 80}, "H100": {"memory_bytes": 1000}}
    assert lookup_accelerator("MY_CARD", extra).memory_bytes == 12 << 30
    assert lookup_accelerator("other-card", extra).memory_bytes == 80 * 10**9
    assert lookup_accelerator("h100", extra).memory_bytes == 1000     # user entry wins
    assert lookup_accelerator("bad", {"bad": {"memory_gib": "x"}}) is None


@pytest.mark.parametrize("name", ["", "Z80", None, 3, "nvidia-"])
def test_unknown(name) -> None:
    assert lookup_accelerator(name) is None


def test_added_devices_are_estimates_with_a_source() -> None:
    for name in ("TPU-v5e", "TPU-v6e", "B100", "RTX-4070-8GB", "L20", "GB300", "RTX-4060", "RTX-A5000", "RTX-A4000"):
        acc = lookup_accelerator(name)
        assert not acc.exact and acc.source and acc.nominal
    # decimal GB, the lower reading: a TPU v6e chip is 32e9 bytes, not 32 GiB
    assert lookup_accelerator("tpu-v6e-slice").memory_bytes == 32_000_000_000
    assert lookup_accelerator("B100").memory_bytes == lookup_accelerator("B200").memory_bytes
    # the Ampere workstation cards: nvidia-smi's Total less the RTX-4090's ~0.55 GiB reserve
    assert (lookup_accelerator("RTXA5000").nvidia_smi_total_mib, lookup_accelerator("RTXA4000").nvidia_smi_total_mib) \
        == (24564, 16376)
    assert round(lookup_accelerator("RTX-A5000").memory_gib, 2) == 23.44


def test_amd_gfx90a_devices_read_the_rocminfo_pool() -> None:
    # An MI210 and one MI250X GCD carry the same 64 GiB of HBM2e; rocminfo gives both a 65,520 MiB pool
    # (ROCm/legacy-rocm-build#3246 for an MI210). The MI210 was once read as 64 decimal GB less 1 GiB (58.6 GiB),
    # 9% below the MI250X GCD for the same memory.
    mi210, gcd = lookup_accelerator("AMD-MI210"), lookup_accelerator("MI250X")
    assert mi210.memory_bytes == gcd.memory_bytes == 65_520 * MIB
    assert not mi210.exact and "ROCm/legacy-rocm-build/issues/3246" in mi210.source


def test_gb200_and_gb300_read_their_nvidia_smi_totals() -> None:
    # nvidia-smi memory.total: GB200 189471 MiB (NVIDIA's own --query-gpu example: NVIDIA/ISV-NCP-Validation-Suite
    # @6284b3e:isvtest/src/isvtest/core/nvidia.py:171), GB300 284208 MiB (SemiAnalysisAI/InferenceX#3321
    # reads "a 277 GiB GPU" on GB300), less the ~1 GiB assumed reserved as for H200 and B200. The marketing figures
    # (186 GB; 20 TB over 72 GPUs) were 12-20 GiB lower and made CTX209 refuse NVIDIA/srt-slurm's
    # recipes/gb200-fp8/*/low-latency-mtp.yaml (DeepSeek-R1 FP8, TP 4, mem-fraction-static 0.90), which run.
    for name, mib in (("GB200", 189471), ("GB300", 284208)):
        acc = lookup_accelerator(name)
        assert (acc.nvidia_smi_total_mib, acc.memory_bytes, acc.exact) == (mib, mib * 2**20 - 2**30, False), name
    assert "NVIDIA/ISV-NCP-Validation-Suite@6284b3e" in lookup_accelerator("GB200").source


def test_every_estimate_has_a_band_top_with_a_source() -> None:
    # An estimated figure is the band's floor; its top is the vendor's total (memory_high_bytes, with its source)
    # or the nvidia-smi Total (CUDA's total is that less the reserved memory). Before, 37 estimates had no top.
    from ctxlint.physics.accelerators import _catalog
    for acc in _catalog():
        if acc.exact:
            assert acc.memory_high == acc.memory_bytes, acc.name
            continue
        assert acc.memory_high >= acc.memory_bytes, acc.name
        if acc.nvidia_smi_total_mib is None:
            assert acc.memory_high_bytes is not None and acc.memory_high_source, acc.name


@pytest.mark.parametrize("name, low, high", [
    # B300: torch.cuda.mem_get_info()'s total, "267.7 GiB" (sgl-project/sglang#25225), both ends of that reading;
    # it was 288 decimal GB less 1 GiB (267.22 GiB)
    ("B300", int(267.65 * 2**30), int(267.75 * 2**30)),
    # MIG: no more than the profile's eighths of the parent's nvidia-smi Total (143,771 MiB on H200)
    ("H200-MIG-1g.18gb", 16 * 2**30, 143_771 * MIB // 8), ("H200-MIG-3g.71gb", 73_014_444_032, 143_771 * MIB // 2),
    ("A100-80GB-MIG-7g.80gb", 84_288_733_184, 81_920 * MIB),
    # AMD's and Google's totals, binary
    ("MI325X", 273_804_165_120, 256 * 2**30), ("MI355X", 309_216_170_475, 288 * 2**30),
    ("TPU-v6e", 32_000_000_000, 32 * 2**30), ("TPU-7x", 96 * 2**30, 96 * 2**30),
    # estimates with an nvidia-smi Total: that Total is the top
    ("H200", 149_681_078_272, 143_771 * MIB), ("GB200", 189_471 * MIB - 2**30, 189_471 * MIB),
    # devices real configs name that the catalog lacked (GKE's nvidia-tesla-p100 / -p4, KubeAI's nvidia-gpu-a16):
    # the vendor's memory as decimal GB (floor) to binary GiB (top)
    ("nvidia-tesla-p100", 16_000_000_000, 16 * 2**30),
    ("Tesla-P100-PCIE-12GB", 12_000_000_000, 12 * 2**30),
    # ... unless nvidia-smi reads less: a P4 shows 7611 MiB, an A16 GPU 15356 MiB ("NVIDIA A16, 15356 MiB"), below
    # even 8 and 16 decimal GB; CUDA sees no more than that Total, so it is the top and 1 GiB under it the floor
    ("nvidia-tesla-p4", 7611 * MIB - 2**30, 7611 * MIB), ("nvidia-gpu-a16", 15356 * MIB - 2**30, 15356 * MIB),
])
def test_estimated_memory_bands(name: str, low: int, high: int) -> None:
    acc = lookup_accelerator(name)
    assert (acc.memory_bytes, acc.memory_high, acc.exact) == (low, high, False)


def test_weights_inside_an_estimated_device_s_band_are_no_ctx203():
    # Qwen2.5-32B at TP 2 holds 30.51 GiB a chip; a TPU v6e chip is 29.80 GiB (32e9 bytes) to 32 GiB. CTX203 said
    # "30.51 GiB > 29.80 GiB" though the weights may fit; it now needs the weights above the band's top, and the
    # role is CTX209 instead: no KV block even with 32 GiB at 0.9 (at most -2.58 GiB)
    from ctxlint.engine import lint_text
    text = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: qwen32b-v6e}
spec:
  model: {id: Qwen/Qwen2.5-32B-Instruct}
  advertised: {context_window: 8192}
  engine: {name: vllm, version: "0.10.1"}
  serving:
    roles:
      - role: unified
        context_length: 8192
        accelerators: {type: TPU-v6e, count: 2}
        parallelism: {tensor: 2}
"""
    (finding,) = lint_text(text, "v6e.yaml").findings
    assert (finding.rule, finding.line, finding.column) == ("CTX209", 12, 30)
    assert finding.message.startswith("-5.27 GiB < one KV block (at most -2.58 GiB with every estimated term at its "
                                      "smallest): the unified engine has no memory left for the KV cache on TPU-v6e")


def test_a_context_that_fails_at_the_a16_s_nvidia_smi_total_is_an_error():
    # Llama-3.2-3B (114,688 B a token) at 69,632 tokens on one A16 GPU: even at its nvidia-smi Total (15356 MiB, the
    # most CUDA can report) one request holds at most 65,760 tokens, so vLLM refuses to start. A band topped at
    # 16 GiB (the vendor's 16 GB read as binary) said only "inside the estimated band 57,552-74,224" (a warning)
    from ctxlint.engine import lint_text
    pod = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-a16}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A16}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "meta-llama/Llama-3.2-3B-Instruct", "--max-model-len", "69632"]
        resources:
          limits: {nvidia.com/gpu: 1}
"""
    (finding,) = lint_text(pod, "a16.yaml").findings
    assert (finding.rule, finding.severity, finding.line) == ("CTX201", "error", 11)
    assert finding.message.startswith("69,632 > 65,760: ")
