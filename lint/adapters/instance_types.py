"""Cloud instance types and families -> the GPU they carry (hardware.canonical_type reads them).

Every entry names the provider's own source; a type or family whose sizes carry different devices, or a
device the accelerator catalog does not know, is left out (it then names no device).
"""
from __future__ import annotations

import re

# AWS instance families whose every size carries the same GPU (same name, same memory), as EC2's
# DescribeInstanceTypes states them in Karpenter's generated reference, one entry per size with its
# instance-gpu-name and instance-gpu-memory (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:
# website/content/en/docs/reference/instance-types.md; p3, retired there, @2be95547983a8948b7172aa66bf92c905fbbf001;
# AWS's table: docs.aws.amazon.com/ec2/latest/instancetypes/ac.html). Left out: g6f and gr6f (a fraction of an L4,
# by size), g5g (T4G), g4ad (Radeon Pro V520) and g7 (RTX PRO 4500), which the catalog does not know, and the
# Neuron families (inf1, inf2, trn1, trn2), whose devices are no GPU. Also the instance types' prefixes below.
AWS_FAMILIES = {"g4dn": "T4", "g5": "A10G", "g6": "L4", "gr6": "L4", "g6e": "L40S", "g7e": "RTX-PRO-6000-Blackwell",
                "p3": "V100-16GB", "p3dn": "V100-32GB", "p4d": "A100-40GB", "p4de": "A100-80GB", "p5": "H100",
                "p5e": "H200", "p5en": "H200", "p6-b200": "B200", "p6-b300": "B300"}

# SageMaker names an instance `ml.<EC2 type>` (HyperPod's EKS nodes carry that name in node.kubernetes.io/instance-type:
# aws/sagemaker-hyperpod-cli@011ca927123e02b35a399935bbb3ab1905fe33c7:hyperpod-pytorch-job-template/
# hyperpod_pytorch_job_template/v1_0/model.py puts a job's `ml.` instance type in that nodeSelector, and
# src/sagemaker/hyperpod/cli/commands/cluster.py reads the nodes' types from the label), with the GPUs of the EC2
# type: ml.g5.12xlarge 4 x 24 GB, ml.p4d.24xlarge 8 x A100 (docs.aws.amazon.com/sagemaker/latest/dg/
# multi-model-support.html, GPUs and GPU memory per ml. type), ml.p5.48xlarge 8 H100, ml.p5e/p5en.48xlarge 8 H200
# (.../dg/sagemaker-hyperpod-eks-gpu-partitioning.html); ml.g6, ml.g6e, ml.g7e, ml.p4de, ml.p6-b200 are SageMaker
# types too (.../APIReference/API_AIRecommendationInstanceDetail.html). That HyperPod page gives ml.p4d "80GB" per
# GPU, against EC2's p4d (A100 40 GB) and its own ml.p4d.24xlarge MIG quota of mig-1g.5gb, a 40 GB A100's profile
# (.../dg/sagemaker-hyperpod-eks-operate-console-ui-governance-policies-compute-allocation-gpu-partitions.html): p4d
# stays EC2's A100-40GB.

# Well-known cloud instance types -> the device they carry (prefix match on the family; AWS's with or without ml.).
INSTANCE_FAMILIES = tuple((r"(?:ml\.)?" + re.escape(family) + r"\.", device)
                          for family, device in AWS_FAMILIES.items()) + (
    # GCP's A2 Standard (a2-highgpu-{1,2,4,8}g and a2-megagpu-16g: A100 40GB), A2 Ultra (a2-ultragpu-*: A100
    # 80GB), A3 High/Mega/Edge (H100 80GB), A3 Ultra (H200) and G2 (L4): docs.cloud.google.com/compute/docs/
    # accelerator-optimized-machines, one GPU model and count per machine type
    (r"a3-ultragpu", "H200"), (r"a3-(high|mega|edge)gpu", "H100"), (r"a2-ultragpu", "A100-80GB"),
    (r"a2-(high|mega)gpu", "A100-40GB"), (r"g2-standard", "L4"),
    # GCP's A4 (B200, nvidia-b200), A4X (GB200, nvidia-gb200) and G4 (RTX PRO 6000 Blackwell, nvidia-rtx-pro-6000)
    # series: one GPU model per series (docs.cloud.google.com/compute/docs/gpus, "GPU machine types"; G4's pairing as
    # GoogleCloudPlatform/accelerated-platforms@9320f3b2:platforms/gke/base/core/custom_compute_class/templates/
    # manifests/gpu/rtx-pro-6000-96gb/*.yaml write it: gpu.type nvidia-rtx-pro-6000 with machineType g4-standard-48)
    # A4X Max (a4x-maxgpu-4g-metal: 4 B300 GPUs of GB300 Superchips, "A4X Max and A4X machine series", same page)
    (r"a4x-highgpu", "GB200"), (r"a4x-maxgpu", "GB300"), (r"a4-highgpu", "B200"),
    (r"g4-standard", "RTX-PRO-6000-Blackwell"),
    (r"standard_nd\d+is?r_h100", "H100"),
    (r"standard_nd\d+is?r_h200", "H200"), (r"standard_nd\d+amsr_a100", "A100-80GB"),
    (r"standard_nc\d+ads_a100", "A100-80GB"), (r"standard_nd\d+asr_v4", "A100-40GB"),
    (r"standard_nc\d+ads_h100", "H100-NVL"), (r"standard_nc\d+as_t4_v3", "T4"),
    # Oracle Cloud GPU shapes (docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm "GPU shapes")
    (r"(vm|bm)\.gpu\.a10\.", "A10"), (r"bm\.gpu\.h100\.", "H100"), (r"bm\.gpu\.h200\.", "H200"),
    (r"bm\.gpu\.a100-v2\.", "A100-80GB"), (r"bm\.gpu4\.", "A100-40GB"), (r"bm\.gpu\.l40s", "L40S"),
    (r"bm\.gpu\.mi300x\.", "MI300X"), (r"(vm|bm)\.gpu3\.", "V100-16GB"),
)

# Azure GPU VM sizes -> (devices per VM, device), as Azure's VM size pages and KAITO's own SKU
# table (pkg/sku/azure_sku_handler.go) state them. Keys are lower case; sizes with a fraction of
# a GPU (NV6ads_A10_v5, ...) are left out: they are not whole devices.
INSTANCE_GPUS = {
    "standard_nv36ads_a10_v5": (1, "A10"), "standard_nv72ads_a10_v5": (2, "A10"),
    "standard_nc24ads_a100_v4": (1, "A100-80GB"), "standard_nc48ads_a100_v4": (2, "A100-80GB"),
    "standard_nc96ads_a100_v4": (4, "A100-80GB"),
    "standard_nd96asr_v4": (8, "A100-40GB"), "standard_nd96asr_a100_v4": (8, "A100-40GB"),  # KAITO's spelling
    "standard_nd96amsr_a100_v4": (8, "A100-80GB"),
    "standard_nc40ads_h100_v5": (1, "H100-NVL"), "standard_nc80adis_h100_v5": (2, "H100-NVL"),
    "standard_ncc40ads_h100_v5": (1, "H100-NVL"),
    "standard_nd96isr_h100_v5": (8, "H100"), "standard_nd96isr_h200_v5": (8, "H200"),
    "standard_nd96isr_mi300x_v5": (8, "MI300X"),
    # NCasT4_v3: one T4 in the 4, 8 and 16 vCPU sizes, four in the 64 (learn.microsoft.com/azure/virtual-machines/
    # sizes/gpu-accelerated/ncast4v3-series; KAITO's table before v0.12.0, kaito_data.SKU_GPUS)
    "standard_nc4as_t4_v3": (1, "T4"), "standard_nc8as_t4_v3": (1, "T4"), "standard_nc16as_t4_v3": (1, "T4"),
    "standard_nc64as_t4_v3": (4, "T4"),
    # NCv3: V100s of 16 GiB each, 1/2/4/4 to a VM (KAITO's table before v0.9.0, {SKU: "Standard_NC24rs_v3", GPUCount:
    # 4, GPUMemGiB: 64, GPUModel: "NVIDIA V100"}, kaito_data.SKU_GPUS); the M60 sizes (NV, NVv3) have no catalog device
    "standard_nc6s_v3": (1, "V100-16GB"), "standard_nc12s_v3": (2, "V100-16GB"), "standard_nc24s_v3": (4, "V100-16GB"),
    "standard_nc24rs_v3": (4, "V100-16GB"),
}

# GPUs per AWS instance size, for the families above whose sizes differ in count (every size not listed has none
# known here): EC2's instance-gpu-count as Karpenter's generated reference states it (aws/karpenter-provider-aws@
# 1d927085dd81a9df9301e613f371dac5b4d16bfe:website/content/en/docs/reference/instance-types.md; p3 from @2be95547983a
# 8948b7172aa66bf92c905fbbf001). A SageMaker `ml.<type>` is the EC2 type (above): the same count. Read by the
# CloudFormation adapter (adapters/cloudformation.py), whose endpoints name an instance type and nothing else.
_ONE_TO_16 = ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")
AWS_GPUS = {
    **{f"g4dn.{s}": 1 for s in _ONE_TO_16}, "g4dn.12xlarge": 4, "g4dn.metal": 8,
    **{f"{f}.{s}": 1 for f in ("g5", "g6", "g6e") for s in _ONE_TO_16},
    **{f"{f}.{s}": n for f in ("g5", "g6", "g6e") for s, n in (("12xlarge", 4), ("24xlarge", 4), ("48xlarge", 8))},
    "gr6.4xlarge": 1, "gr6.8xlarge": 1,
    "g7e.2xlarge": 1, "g7e.4xlarge": 1, "g7e.8xlarge": 1, "g7e.12xlarge": 2, "g7e.24xlarge": 4, "g7e.48xlarge": 8,
    "p3.2xlarge": 1, "p3.8xlarge": 4, "p3.16xlarge": 8, "p3dn.24xlarge": 8,
    "p4d.24xlarge": 8, "p4de.24xlarge": 8, "p5.4xlarge": 1, "p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
    "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 8,
}
