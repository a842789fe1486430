"""KAITO's own facts behind the node count it runs a preset on (kaito_nodes.py), each from KAITO's source.

Sources are `kaito-project/kaito@<commit>:<path>`; the commits are these release tags:
v0.5.0 9326178d6ab658c259d7fec09149c452d8dbef03, v0.6.2 5e41f462d9cb68684a79356e0da35c23ff9f6edd,
v0.7.0 cbc20c1ceb8a0ead87f8f8d316cead752fc381ca, v0.8.1 d56734a0b873a300747d3afa7a862fd98da1af9e,
v0.9.0 18a0177e1d8f561055da7c4fde1fa6b6af1e014b,
v0.10.0 c673cadc60c1ed8e9d2cf7614e3a5fab4d2f987f, v0.11.0 7545aa214f72475081330dd4c4b5c0a30f494870,
v0.12.0 0894eb2b567d48cd2d66afe579acb1542b226af4 (056b8280b1a8debf644bc6f4399e913a1f9c7e70, after v0.12.0,
holds the same facts). A preset this module does not list has no recorded size: its node count is unknown.
"""
from __future__ import annotations

# Azure VM sizes, as KAITO spells them (v0.10.0 and later compare with strings.EqualFold, v0.7.0 to v0.9.x
# look the exact spelling up), -> (GPUs, GPU memory of the VM in GiB), as NewAzureSKUHandler lists them, the
# same for each size below from v0.7.0 (GPUMemGB) to v0.12.0 (GPUMem):
# kaito-project/kaito@0894eb2b567d48cd2d66afe579acb1542b226af4:pkg/sku/azure_sku_handler.go
SKU_GPUS = {
    "Standard_NV36ads_A10_v5": (1, 24), "Standard_NV72ads_A10_v5": (2, 48),
    "Standard_NC24ads_A100_v4": (1, 80), "Standard_NC48ads_A100_v4": (2, 160),
    "Standard_NC96ads_A100_v4": (4, 320), "Standard_ND96asr_A100_v4": (8, 320),
    "Standard_ND96amsr_A100_v4": (8, 640), "Standard_NC40ads_H100_v5": (1, 94),
    "Standard_NC80adis_H100_v5": (2, 188), "Standard_NCC40ads_H100_v5": (1, 94),
    "Standard_ND96isr_H100_v5": (8, 640), "Standard_ND96isr_H200_v5": (8, 1128),
    # the T4 sizes: in every release's table before v0.12.0 (v0.3.2 to v0.11.0, e.g. @7545aa21 v0.11.0:
    # {SKU: "Standard_NC64as_T4_v3", GPUCount: 4, GPUMem: 64Gi}), dropped in v0.12.0 with every GPU below CUDA
    # compute capability 8.0 (kaito-project/kaito#2185, d521cf020d1339d75001de0b2b62655bf3e50bc8): SKUS_BEFORE_V0_12
    "Standard_NC4as_T4_v3": (1, 16), "Standard_NC8as_T4_v3": (1, 16), "Standard_NC16as_T4_v3": (1, 16),
    "Standard_NC64as_T4_v3": (4, 64),
    # the M60 sizes: in every table from v0.5.0 to v0.11.0 (@7545aa21 v0.11.0: {SKU: "Standard_NV48s_v3", GPUCount:
    # 4, GPUMem: 32Gi}), dropped in v0.12.0 with the T4 sizes (#2185): SKUS_BEFORE_V0_12
    "Standard_NV12s_v3": (1, 8), "Standard_NV24s_v3": (2, 16), "Standard_NV48s_v3": (4, 32),
    # the V100 sizes and the first NV series' M60 sizes: in every table from v0.5.0 to v0.8.1 (@d56734a0b873a3007
    # 47d3afa7a862fd98da1af9e v0.8.1: {SKU: "Standard_NC24rs_v3", GPUCount: 4, GPUMemGiB: 64}), dropped for v0.9.0 as
    # expired VM sizes (kaito-project/kaito#1780, 35efc3918b61f55714e1cd17565f9b9eb8ec9773): SKUS_BEFORE_V0_9
    "Standard_NC6s_v3": (1, 16), "Standard_NC12s_v3": (2, 32), "Standard_NC24s_v3": (4, 64),
    "Standard_NC24rs_v3": (4, 64), "Standard_NV6": (1, 8), "Standard_NV12": (2, 16), "Standard_NV24": (4, 32),
}
# From v0.12.0 an Azure N-series size its table lacks passes the webhook (a name prefix test, api/v1beta1/
# workspace_validation.go at 0894eb2b), but a vLLM preset's node estimate fails on it (sku.GetGPUConfigBySKU
# "Unsupported SKU", pkg/sku/helpers.go; workspace_controller.go UpdateWorkspaceTargetNodeCount returns the error):
# nothing runs.
SKUS_BEFORE_V0_12 = ("Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3",
                     "Standard_NC64as_T4_v3", "Standard_NV12s_v3", "Standard_NV24s_v3", "Standard_NV48s_v3")
# v0.9.0 to v0.11.x: a size its table lacks fails sku.GetGPUConfigBySKU the same way (case-sensitive before v0.10.0)
SKUS_BEFORE_V0_9 = ("Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3", "Standard_NC24rs_v3",
                    "Standard_NV6", "Standard_NV12", "Standard_NV24")

# v0.11.0 and later: a legacy preset name is the catalog model it redirects to (LegacyBuiltinToCatalog,
# kaito-project/kaito@0894eb2b567d48cd2d66afe579acb1542b226af4:pkg/utils/plugin/plugin.go; the same 25 names
# at v0.11.0), looked up lower case (GetModelByNameWithToken).
LEGACY = {
    "phi-4": "microsoft/phi-4", "phi-4-mini-instruct": "microsoft/phi-4-mini-instruct",
    "llama-3.1-8b-instruct": "meta-llama/llama-3.1-8b-instruct",
    "llama-3.3-70b-instruct": "meta-llama/llama-3.3-70b-instruct",
    "deepseek-r1-distill-llama-8b": "deepseek-ai/deepseek-r1-distill-llama-8b",
    "deepseek-r1-distill-qwen-14b": "deepseek-ai/deepseek-r1-distill-qwen-14b",
    "deepseek-r1-0528": "deepseek-ai/deepseek-r1-0528", "deepseek-v3-0324": "deepseek-ai/deepseek-v3-0324",
    "phi-3-mini-4k-instruct": "microsoft/phi-3-mini-4k-instruct",
    "phi-3-mini-128k-instruct": "microsoft/phi-3-mini-128k-instruct",
    "phi-3-medium-4k-instruct": "microsoft/phi-3-medium-4k-instruct",
    "phi-3-medium-128k-instruct": "microsoft/phi-3-medium-128k-instruct",
    "phi-3.5-mini-instruct": "microsoft/phi-3.5-mini-instruct",
    "qwen2.5-coder-7b-instruct": "qwen/qwen2.5-coder-7b-instruct",
    "qwen2.5-coder-32b-instruct": "qwen/qwen2.5-coder-32b-instruct",
    "gpt-oss-20b": "openai/gpt-oss-20b", "gpt-oss-120b": "openai/gpt-oss-120b",
    "gemma-3-4b-instruct": "google/gemma-3-4b-it", "gemma-3-27b-instruct": "google/gemma-3-27b-it",
    "mistral-7b": "mistralai/mistral-7b-v0.3", "mistral-7b-instruct": "mistralai/mistral-7b-instruct-v0.3",
    "ministral-3-3b-instruct": "mistralai/ministral-3-3b-instruct-2512",
    "ministral-3-8b-instruct": "mistralai/ministral-3-8b-instruct-2512",
    "ministral-3-14b-instruct": "mistralai/ministral-3-14b-instruct-2512",
    "mistral-large-3-675b-instruct": "mistralai/mistral-large-3-675b-instruct-2512",
}

# v0.11.0 and later: catalog model -> (modelFileSize, bytes per token). The size is the entry's modelFileSize
# (kaito-project/kaito@0894eb2b567d48cd2d66afe579acb1542b226af4:presets/workspace/models/model_catalog.yaml, the
# same at v0.11.0); the bytes per token are what calculateKVCacheTokenSize (presets/workspace/generator/
# generator.go) makes of its fields: 2 x numKeyValueHeads x head dim (headDim, else hiddenSize /
# numAttentionHeads) x numHiddenLayers x 2 bytes, or (kvLoraRank + qkRopeHeadDim) x numHiddenLayers x 2 for MLA.
CATALOG = {
    "microsoft/phi-4": ("27.31Gi", 2 * 10 * 128 * 40 * 2),
    "microsoft/phi-4-mini-instruct": ("7.15Gi", 2 * 8 * 128 * 32 * 2),
    "meta-llama/llama-3.1-8b-instruct": ("14.96Gi", 2 * 8 * 128 * 32 * 2),
    "meta-llama/llama-3.3-70b-instruct": ("131.42Gi", 2 * 8 * 128 * 80 * 2),
    "deepseek-ai/deepseek-r1-distill-llama-8b": ("14.96Gi", 2 * 8 * 128 * 32 * 2),
    "deepseek-ai/deepseek-r1-distill-qwen-14b": ("27.51Gi", 2 * 8 * 128 * 48 * 2),
    "deepseek-ai/deepseek-r1-0528": ("641.30Gi", (512 + 64) * 61 * 2),
    "deepseek-ai/deepseek-v3-0324": ("641.30Gi", (512 + 64) * 61 * 2),
    "microsoft/phi-3-mini-4k-instruct": ("7.12Gi", 2 * 32 * 96 * 32 * 2),
    "microsoft/phi-3-mini-128k-instruct": ("7.12Gi", 2 * 32 * 96 * 32 * 2),
    "microsoft/phi-3-medium-4k-instruct": ("26.00Gi", 2 * 10 * 128 * 40 * 2),
    "microsoft/phi-3-medium-128k-instruct": ("26.00Gi", 2 * 10 * 128 * 40 * 2),
    "microsoft/phi-3.5-mini-instruct": ("7.12Gi", 2 * 32 * 96 * 32 * 2),
    "qwen/qwen2.5-coder-7b-instruct": ("14.19Gi", 2 * 4 * 128 * 28 * 2),
    "qwen/qwen2.5-coder-32b-instruct": ("61.03Gi", 2 * 8 * 128 * 64 * 2),
    "openai/gpt-oss-20b": ("25.63Gi", 2 * 8 * 64 * 24 * 2),
    "openai/gpt-oss-120b": ("121.54Gi", 2 * 8 * 64 * 36 * 2),
    "google/gemma-3-4b-it": ("8.01Gi", 2 * 4 * 256 * 34 * 2),
    "google/gemma-3-27b-it": ("51.10Gi", 2 * 16 * 128 * 62 * 2),
    "mistralai/mistral-7b-v0.3": ("13.50Gi", 2 * 8 * 128 * 32 * 2),
    "mistralai/mistral-7b-instruct-v0.3": ("13.50Gi", 2 * 8 * 128 * 32 * 2),
    "mistralai/ministral-3-3b-instruct-2512": ("4.35Gi", 2 * 8 * 128 * 26 * 2),
    "mistralai/ministral-3-8b-instruct-2512": ("9.70Gi", 2 * 8 * 128 * 34 * 2),
    "mistralai/ministral-3-14b-instruct-2512": ("14.65Gi", 2 * 8 * 128 * 40 * 2),
    "mistralai/mistral-large-3-675b-instruct-2512": ("634.70Gi", (512 + 64) * 61 * 2),
}

# v0.8.0 to v0.10.x: preset -> (TotalSafeTensorFileSize, BytesPerToken, SupportDistributedInference), as each
# family's GetInferenceParameters states them (kaito-project/kaito@c673cadc60c1ed8e9d2cf7614e3a5fab4d2f987f:
# presets/workspace/models/<family>/model.go; the same at v0.8.0). The falcon presets are left out: their
# DisableTensorParallelism changes the estimate (advancednodesestimator), which is not modelled.
GO_PRESETS = {
    "deepseek-r1-0528": ("641.3Gi", 70272, True), "deepseek-v3-0324": ("641.3Gi", 70272, True),
    "deepseek-r1-distill-llama-8b": ("14.96Gi", 131072, False),
    "deepseek-r1-distill-qwen-14b": ("27.51Gi", 196608, False),
    "gemma-3-4b-instruct": ("8.6Gi", 348160, False), "gemma-3-27b-instruct": ("54.8Gi", 666624, False),
    "gpt-oss-20b": ("16Gi", 34560, False), "gpt-oss-120b": ("60.77Gi", 51840, False),
    "llama-3.1-8b-instruct": ("14.96Gi", 131072, True), "llama-3.3-70b-instruct": ("131.42Gi", 327680, True),
    "ministral-3-3b-instruct": ("8.70Gi", 106496, False), "ministral-3-8b-instruct": ("19.41Gi", 139264, False),
    "ministral-3-14b-instruct": ("29.29Gi", 163840, False),
    "mistral-large-3-675b-instruct": ("634.70Gi", 70272, True),
    "mistral-7b": ("13.49Gi", 131072, False), "mistral-7b-instruct": ("13.49Gi", 131072, False),
    "phi-3-mini-4k-instruct": ("7.12Gi", 393216, False), "phi-3-mini-128k-instruct": ("7.12Gi", 393216, False),
    "phi-3-medium-4k-instruct": ("26Gi", 204800, False), "phi-3-medium-128k-instruct": ("26Gi", 204800, False),
    "phi-3.5-mini-instruct": ("7.12Gi", 393216, False), "phi-4": ("27.31Gi", 204800, False),
    "phi-4-mini-instruct": ("7.15Gi", 131072, False),
    "qwen2.5-coder-7b-instruct": ("14.19Gi", 57344, False),
    "qwen2.5-coder-32b-instruct": ("61.03Gi", 262144, False),
}
GO_PRESETS_UNRECORDED = ("falcon-7b", "falcon-7b-instruct", "falcon-40b", "falcon-40b-instruct")

# v0.7.x: the same families without the presets v0.8.0 added, with phi-2 (dropped in v0.8.0; not recorded, as
# falcon), and DeepSeek's BytesPerToken 1748992 where v0.8.0 has 70272 (kaito-project/kaito@
# cbc20c1ceb8a0ead87f8f8d316cead752fc381ca:presets/workspace/models/deepseek/model.go).
ADDED_IN_V0_8 = ("gemma-3-4b-instruct", "gemma-3-27b-instruct", "ministral-3-3b-instruct",
                 "ministral-3-8b-instruct", "ministral-3-14b-instruct", "mistral-large-3-675b-instruct")
V0_7_BYTES_PER_TOKEN = {"deepseek-r1-0528": 1748992, "deepseek-v3-0324": 1748992}

# v0.5.0 to v0.6.x: preset -> (TotalGPUMemoryRequirement, SupportDistributedInference) of its inference
# parameters, as v0.6.2 registers them (kaito-project/kaito@5e41f462d9cb68684a79356e0da35c23ff9f6edd:
# presets/workspace/models/*/model.go; v0.5.0 has the same values, without the two DeepSeek 671B presets).
# A preset named in the tables above but not here came with v0.7.0 or later; these three came with v0.5.0 or
# v0.6.0 (v0.4.6, kaito-project/kaito@4e48fa955ebdebb9253298a5ad805a060e72bacf, registers the rest).
BEFORE_V0_7 = {
    "deepseek-r1-0528": ("960Gi", True), "deepseek-v3-0324": ("960Gi", True),
    "deepseek-r1-distill-llama-8b": ("16.5Gi", False), "deepseek-r1-distill-qwen-14b": ("25.7Gi", False),
    "falcon-7b": ("14Gi", False), "falcon-7b-instruct": ("14Gi", False), "falcon-40b": ("90Gi", False),
    "falcon-40b-instruct": ("90Gi", False), "llama-3.1-8b-instruct": ("22Gi", True),
    "llama-3.3-70b-instruct": ("320Gi", True), "mistral-7b": ("14Gi", False), "mistral-7b-instruct": ("16Gi", False),
    "phi-2": ("12Gi", False), "phi-3-mini-4k-instruct": ("9Gi", False), "phi-3-mini-128k-instruct": ("9Gi", False),
    "phi-3-medium-4k-instruct": ("28Gi", False), "phi-3-medium-128k-instruct": ("28Gi", False),
    "phi-3.5-mini-instruct": ("8Gi", False), "phi-4": ("40Gi", False), "phi-4-mini-instruct": ("8Gi", False),
    "qwen2.5-coder-7b-instruct": ("24Gi", False), "qwen2.5-coder-32b-instruct": ("70Gi", False),
}
AFTER_V0_4 = ("llama-3.3-70b-instruct", "deepseek-r1-0528", "deepseek-v3-0324")
# The A10 sizes are not in v0.5.0's SKU table (kaito-project/kaito@9326178d6ab658c259d7fec09149c452d8dbef03:
# pkg/sku/azure_sku_handler.go); v0.6.2 has them, with the GPU memory of SKU_GPUS.
SKUS_SINCE_V0_6 = ("Standard_NV36ads_A10_v5", "Standard_NV72ads_A10_v5")

# v0.12.0: the MIG profiles the webhook accepts (knownProfiles, kaito-project/kaito@
# 0894eb2b567d48cd2d66afe579acb1542b226af4:pkg/utils/mig/mig.go ValidateMIGProfile).
MIG_PROFILES = frozenset((
    "1g.6gb", "2g.12gb", "4g.24gb", "1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb", "1g.10gb", "1g.20gb",
    "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb",
    "3g.48gb", "4g.48gb", "7g.96gb", "1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb",
    "1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"))
