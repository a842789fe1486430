"""Which devices a role whose device is not stated is given verdicts for (CTX208's list), and what its advice tells
the user to state, by the role's device resource, vendor and input format. Apart from needs.py (the memory
search), which re-exports what it reads of it."""
from __future__ import annotations

import os

from typing import Tuple

from ctxlint.model import Deployment, Role

from .gaudi import counted_path

# Common data-centre and workstation devices, smallest first (names as in the accelerator catalog).
COMMON = ("L4", "A10G", "L40S", "A100-40GB", "A100-80GB", "H100", "H200", "B200", "MI300X")
_FIX = ("state the device (a nodeSelector such as nvidia.com/gpu.product or node.kubernetes.io/instance-type, "
        "or `default-accelerator:` in .ctxlint.yaml)")
# The devices a role's device-plugin resource can be (Accelerators.resource, else its count's key): an amd.com/gpu
# pod is no L4, an nvidia.com/gpu pod no MI300X, and a Gaudi, TPU or Intel GPU pod none of the common ones; the
# catalog has no Gaudi at all.
_AMD = ("MI210", "MI250X", "MI300X", "MI325X", "MI355X")
_NVIDIA = tuple(name for name in COMMON if name not in _AMD)
_NEURON_FIX = "state the KV pool the engine logs: NeuronCores are not in the accelerator catalog"
_OTHER_FIX = ("state the device (`default-accelerator:` in .ctxlint.yaml, defined under `accelerators:` with its "
              "memory_gib when the catalog lacks it)")


_AMD_FIX = "state the device (a node selector naming it, or `default-accelerator:` in .ctxlint.yaml)"


def _vendor_devices(role: Role) -> Tuple[Tuple[str, ...], str]:
    """The devices to give verdicts for, and the advice, by the resource the role's device count is of; without
    one, by the vendor its image, container runtime or variables name (Role.vendor: a `rocm/vllm` or `tgi-gaudi`
    container with no resource is no L4)."""
    path = counted_path(role)
    if role.neuron is not None:  # NeuronCores (a Neuron device count is no count of them: hardware.engine_devices)
        return (), _NEURON_FIX
    if path.endswith('["nvidia.com/gpu"]'):
        return _NVIDIA, _FIX
    if path.endswith('["amd.com/gpu"]'):
        return _AMD, _AMD_FIX
    if path.endswith(('["habana.ai/gaudi"]', '["google.com/tpu"]', '["intel.com/gpu"]', '["gpu.intel.com/i915"]',
                      '["gpu.intel.com/xe"]',
                      '["aws.amazon.com/neuroncore"]', '["aws.amazon.com/neuron"]', '["aws.amazon.com/neurondevice"]')):
        return (), _OTHER_FIX
    if role.vendor is not None:  # no device resource above says which vendor: the image or runtime does
        return (_AMD, _AMD_FIX) if role.vendor.value == "amd" else ((), _OTHER_FIX)
    return COMMON, _FIX


# Formats that name no device anywhere (compose's device_ids are indexes; a script, a systemd unit, an engine's own
# config file or LMI's serving.properties, whose SageMaker instance type is chosen where the endpoint is made, has no
# node selector): the only place to state one is ctxlint's config.
_NO_DEVICE_FIELD = ("compose", "shell-script", "engine-config", "systemd-unit", "lmi-properties")
_CONFIG_FIX = "state the device (`default-accelerator:` in .ctxlint.yaml: this file has no field that names one)"

# llama-swap's config names no device; read from a ConfigMap (engine_config_maps.py) it takes the device of the pod
# that mounts it at its `--config` only when that pod is among the checked files (llama_swap_pods.py): here it was not.
_LLAMA_SWAP_FIX = ("state the device (`default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's path "
                   "-> device: a llama-swap config has no field that names one, and a pod that mounts it from a "
                   "ConfigMap gives its device only when checked with it and mounting it at its `--config`)")

# SkyPilot names the device in `resources.accelerators` (adapters/skypilot.py, SkyPilot's names).
_SKYPILOT_FIX = ("state the device (`resources.accelerators` in the task, such as `accelerators: H100:8` or "
                 "`A100-80GB:1`, or `default-accelerator:` in .ctxlint.yaml)")

# A Ray Serve LLM config names the device in `accelerator_type` (ray_serve.py via crds_kuberay.llm_config): Ray's
# type is NVML's model word, so its `A100` is either size.
_RAY_SERVE_FIX = ("state the device (`accelerator_type` in the LLM config, such as `accelerator_type: L4`: Ray's "
                  "`A100` is either size; or `default-accelerator:` in .ctxlint.yaml)")

# A CloudFormation template names the device in the endpoint config's `ProductionVariants[].InstanceType`
# (adapters/cloudformation.py), read where the template holds its value (a literal or a parameter's `Default`).
_CFN_FIX = ("state the device (the endpoint config's `ProductionVariants[].InstanceType`, such as `ml.g5.2xlarge`, "
            "as a value the template holds: a literal or its parameter's `Default`; or `default-accelerator:` in "
            ".ctxlint.yaml)")

# An srt-slurm recipe names the device in `resources.gpu_type` (adapters/srt_recipe.py), srtctl's lower-case names.
_SRT_FIX = ("state the device (`resources.gpu_type` in the recipe, such as `gpu_type: h100` or `gb200`, or "
            "`default-accelerator:` in .ctxlint.yaml)")

# A KubeAI Model names the device by its `resourceProfile` (crds_kubeai.PROFILES, the chart's default profiles); a
# profile of the operator's own is defined in the KubeAI chart's values, which the Model file does not hold.
_KUBEAI_FIX = ("state the device (a `resourceProfile` of KubeAI's defaults, such as `nvidia-gpu-l4:1` or "
               "`nvidia-gpu-h100:8`, or `default-accelerator:` in .ctxlint.yaml)")

# ctxlint's own manifest names the device in a role's `accelerators.type` (adapters/native.py, manifest.schema.json).
_NATIVE_FIX = ("state the device (the role's `accelerators.type` in the manifest, such as `accelerators: {type: H100, "
               "count: 1}`, or `default-accelerator:` in .ctxlint.yaml)")

# vLLM production-stack's VLLMRuntime places its pod only by `deploymentConfig.nodeSelectorTerms` (node affinity:
# vllm-project/production-stack@a6c01db0 operator/api/v1alpha1/vllmruntime_types.go), which
# adapters/crds_vllm_runtime.py does not read, and has no nodeSelector: ctxlint's config is the place.
_VLLM_RUNTIME_FIX = ("state the device (`default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's path "
                     "-> device: a VLLMRuntime's `deploymentConfig.nodeSelectorTerms` are not read for its device)")

_FORMAT_FIXES = {"native": _NATIVE_FIX, "vllm-runtime": _VLLM_RUNTIME_FIX, "llama-swap": _LLAMA_SWAP_FIX, "skypilot": _SKYPILOT_FIX, "ray-serve": _RAY_SERVE_FIX,
                 "cloudformation": _CFN_FIX, "srt-slurm": _SRT_FIX, "kubeai": _KUBEAI_FIX}


# Akash SDL names the device in the compute profile (adapters/akash_gpus.py): `nvidia:` without a model is any GPU.
_AKASH_FIX = ("state the device (a `- model: h100` with its `ram: 80Gi` under the compute profile's "
              "`gpu.attributes.vendor.nvidia`, or `default-accelerator:` in .ctxlint.yaml)")


# A Truss config names the device in `resources.accelerator` (adapters/truss_resources.py), Baseten's names.
_TRUSS_FIX = ("state the device (`resources.accelerator: H100:2` in the Truss config: T4, L4, A10G, V100, A100, "
              "A100_40GB, H100, H100_40GB, H200, B200, L40S, RTX_PRO_6000, B300, GB300; or `default-accelerator:` "
              "in .ctxlint.yaml)")


_SCRIPT_FIX = ("state the device (`default-accelerator:` in .ctxlint.yaml, or a Slurm header naming a type such as "
               "`#SBATCH --gres=gpu:h100:4` for a batch script; a site's `a100` or `v100` comes in two memory sizes "
               "and is checked over both)")

# dstack names the device in `resources.gpu` (adapters/dstack_gpus.py); a memory alone is several devices.
_DSTACK_FIX = ("state the device (a name in `resources.gpu`, such as `gpu: L4:1` or `gpu: A100:80GB:2`: a memory "
               "alone, `24GB`, fits several devices; or `default-accelerator:` in .ctxlint.yaml)")


# A chart of the deployment's own places the pod (values_commands.py): its values' node selectors mean what the
# template makes of them, so the device is stated where ctxlint reads it, the rendered chart or its config.
_TEMPLATE_FIX = ("state the device (the chart's own template places the pod, and its values' node selectors are not "
                 "read: lint what it renders, `helm template REL CHART | ctxlint check -`, whose nodeSelector and GPU "
                 "limits are read, or set `default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's "
                 "path -> device)")


def _advice(dep: Deployment, role: Role) -> str:
    if role.vendor is not None and _vendor_devices(role)[1] is _OTHER_FIX:
        return _OTHER_FIX  # Gaudi, TPU, Intel: no field of any format names a catalog device for them
    if role.device_by_template:
        return _TEMPLATE_FIX
    if role.device_vm is not None:  # a KAITO instanceType ctxlint does not record the GPUs of
        where = role.device_vm.source
        return (f"resource.instanceType {role.device_vm.value} ({where.file}:{where.line}:{where.col}) is not among "
                "the sizes whose GPUs ctxlint records (most of KAITO's SKU table; not its AMD V620, MI25 and "
                "NVIDIA M60 sizes, whose GPUs the catalog lacks): name one of them, or state the device "
                "(`default-accelerator:` in .ctxlint.yaml) and its GPUs per node (`tensor-parallel-size` under "
                "`vllm:` in the inference config)")
    if role.device_class is not None:  # a GKE compute class (adapters/compute_classes.py) that names no device
        where = role.device_class.source
        missing = "check the file that defines it together with this one, or " \
            if str(role.device_class.raw).startswith("no checked file") else ""
        return (f"the pod selects the GKE compute class '{role.device_class.value}' ({where.file}:{where.line}:"
                f"{where.col}), but {role.device_class.raw}: {missing}state the device beside it "
                "(cloud.google.com/gke-accelerator, or `default-accelerator:` in .ctxlint.yaml)")
    if role.device_pool is not None:  # a Karpenter NodePool (adapters/karpenter_pools.py) that names no device
        where = role.device_pool.source
        missing = "check the file that defines it together with this one, or " \
            if str(role.device_pool.raw).startswith("no checked file") else ""
        return (f"the pod selects the Karpenter NodePool '{role.device_pool.value}' ({where.file}:{where.line}:"
                f"{where.col}), but {role.device_pool.raw}: {missing}state the device beside it "
                "(node.kubernetes.io/instance-type or karpenter.k8s.aws/instance-gpu-name, or `default-accelerator:` "
                "in .ctxlint.yaml)")
    if dep.input_format == "akash-sdl":
        return _AKASH_FIX
    if dep.input_format == "dstack":
        return _DSTACK_FIX
    if dep.input_format == "shell-script":
        return _SCRIPT_FIX
    if dep.input_format == "truss":
        return _TRUSS_FIX
    if role.device_by_profile:  # a KubeAI Model, or its models chart's catalog entry (helm-values)
        return _KUBEAI_FIX
    if dep.input_format == "llama-swap" and role.accelerators.count is not None:
        # joined to the pod that mounts it (llama_swap_pods.py): that pod gives the GPUs, its node selector no device
        where = role.accelerators.count.source
        return (f"state the device (the pod whose llama-swap container runs these models gives them its GPUs, "
                f"{os.path.basename(where.file)}:{where.line}, but its node selector names no device: name it "
                "there, or `default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's path -> device)")
    if dep.input_format in _FORMAT_FIXES:
        return _FORMAT_FIXES[dep.input_format]
    return _CONFIG_FIX if dep.input_format in _NO_DEVICE_FIELD else _vendor_devices(role)[1]
