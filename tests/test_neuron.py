"""vLLM on AWS Neuron: the KV pool as the Neuron platform builds it (ctxlint.neuron), never GPU advice.

Sweep 29: manu-joy/rosa-llm-driven-deployment serves Qwen3-Coder on an inf2.24xlarge with `--block-size=32
--num-gpu-blocks-override=16 --no-enable-prefix-caching --max-model-len=8192` and got a false CTX201 (8,192 >
480, a pool of 16 x 32); vllm-neuron sets the block size to max-model-len there. aws-samples/eks-workshop-v2's
`aws.amazon.com/neuron: 1` got a verdict list of GPUs.
"""
from __future__ import annotations

from helpers import run
from tests.adapters.kit import adapt, at

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen-neuron}
spec:
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: inf2.24xlarge}
      containers:
      - name: vllm-neuron
        image: public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.13.0-neuronx-py312-sdk2.28.0-ubuntu24.04
        env:
        - {name: VLLM_NEURON_FRAMEWORK, value: neuronx-distributed-inference}
        command: [vllm, serve, Qwen/Qwen3-8B, --tensor-parallel-size=8, --max-num-seqs=16, --max-model-len=8192,
                  --block-size=32, --num-gpu-blocks-override=16, --no-enable-prefix-caching]
        resources:
          limits: {aws.amazon.com/neuroncore: "12"}
"""


def _check(tmp_path, text: str, *args: str) -> str:
    path = tmp_path / "d.yaml"
    path.write_text(text)
    return run(["check", str(path), *args]).out.replace(str(path), "d.yaml")


def test_the_pool_is_blocks_of_max_model_len_without_prefix_caching(tmp_path):
    [role] = adapt(DEPLOYMENT).deployments[0].roles
    assert (role.neuron.value, role.neuron.raw, at(DEPLOYMENT, role.neuron.source)) == \
        ("neuron", "aws.amazon.com/neuroncore", '"12"')
    pool = role.kv_pool_tokens
    assert (pool.value, pool.raw, at(DEPLOYMENT, pool.source)) == \
        (131072, "16 blocks x 8192 tokens (Neuron block size: --max-model-len: prefix caching is off)", "16")
    # no CTX201/CTX402 (a request takes one block of max-model-len); CTX205 counts NeuronCores, not instances
    assert _check(tmp_path, DEPLOYMENT) == (
        "d.yaml:16:47: CTX205 [warning] 12 > 8: the unified replica has 12 NeuronCores but its engine uses tensor x "
        "pipeline x data = 8; 4 sit idle. Set the tensor parallel size (or pipeline/data) to use all 12 "
        "(idle-accelerators)\n")


def test_what_one_request_holds(tmp_path):
    from ctxlint.capacity import with_pools

    [dep] = adapt(DEPLOYMENT).deployments
    dep, _ = with_pools(dep)
    pool = dep.roles[0].pool
    assert (pool.tokens, pool.request, pool.reserve) == \
        (131072, 8192, "vLLM on Neuron gives a request one block of --max-model-len, 8,192 tokens")


def test_prefix_caching_leaves_the_block_size_to_the_release_line(tmp_path):
    text = DEPLOYMENT.replace(", --no-enable-prefix-caching]", "]")
    assert adapt(text).deployments[0].roles[0].kv_pool_tokens is None
    assert _check(tmp_path, text, "--select", "CTX201,CTX208") == (
        "d.yaml:16:47: CTX208 [info] KV pool of unified not declared and not derivable: the engine runs on AWS Neuron "
        "(aws.amazon.com/neuroncore): --num-gpu-blocks-override is a count of blocks, and prefix caching is on (vLLM's "
        "default), so the block size is --max-model-len on the in-tree Neuron platform and --block-size under the "
        "vllm-neuron plugin, and the file does not say which runs; state the pool (the ctxlint.io/kv-pool-tokens "
        "annotation); capacity checks skip these roles (capacity-not-derivable)\n")


def test_vllms_own_scheduler_keeps_the_block_size(tmp_path):
    text = DEPLOYMENT.replace("      - {name: VLLM_NEURON_FRAMEWORK, value: neuronx-distributed-inference}\n",
                              "      - {name: DISABLE_NEURON_CUSTOM_SCHEDULER, value: \"1\"}\n")
    [role] = adapt(text).deployments[0].roles
    assert role.kv_pool_tokens.value == 512  # 16 blocks of --block-size 32
    assert _check(tmp_path, text, "--select", "CTX201") == (
        "d.yaml:13:108: CTX201 [error] 8,192 > 512: the unified engine context length 8,192 exceeds its KV pool 512 "
        "(declared) by 7,680 tokens; the vllm-neuron plugin refuses to start (\"At least N blocks are required for "
        "max_model_len ...\": --num-gpu-blocks-override must hold --max-num-seqs requests of the context length). "
        "Lower the context length to 512, or raise --num-gpu-blocks-override (context-exceeds-kv-pool)\n")


WORKSHOP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: mistral}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1-neuronx-py311-sdk2.26.0-ubuntu22.04
        command: [/bin/sh, -c]
        args: ["vllm serve mistralai/Mistral-7B-Instruct-v0.3 --device neuron --tensor-parallel-size 2
          --max-model-len 2048"]
        resources:
          limits: {aws.amazon.com/neuron: 1}
"""


def test_no_gpu_advice_for_a_neuron_role(tmp_path):
    out = _check(tmp_path, WORKSHOP, "--select", "CTX208")
    assert out == (
        "d.yaml:14:43: CTX208 [info] KV pool of unified not declared and not derivable: the engine runs on AWS Neuron "
        "(aws.amazon.com/neuron): without --num-gpu-blocks-override the Neuron platform sizes vLLM's KV pool itself "
        "(the vllm-neuron plugin from the NeuronCores' free memory at startup), which ctxlint does not derive; state "
        "the pool (the ctxlint.io/kv-pool-tokens annotation); capacity checks skip these roles "
        "(capacity-not-derivable)\n")
    # a GPU default-accelerator is no NeuronCore: it is not applied
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: H100\n")
    assert "AWS Neuron" in _check(tmp_path, WORKSHOP, "--select", "CTX208", "--config",
                                  str(tmp_path / ".ctxlint.yaml"))


def test_what_says_neuron():
    gpu = WORKSHOP.replace("public.ecr.aws/neuron/pytorch-inference-vllm-neuronx", "vllm/vllm-openai") \
        .replace("aws.amazon.com/neuron", "nvidia.com/gpu")
    assert adapt(gpu).deployments[0].roles[0].neuron is None
    image = "public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1-neuronx-py311-sdk2.26.0-ubuntu22.04"
    for text, raw in ((WORKSHOP.replace("aws.amazon.com/neuron", "nvidia.com/gpu"), image),
                      (gpu.replace("      containers:", "      nodeSelector: {node.kubernetes.io/instance-type: "
                                                        "trn1.32xlarge}\n      containers:"), "trn1.32xlarge"),
                      (gpu.replace("        resources:", "        env: [{name: NEURON_RT_VISIBLE_CORES, value: "
                                                          "0-7}]\n        resources:"), "NEURON_RT_VISIBLE_CORES")):
        assert adapt(text).deployments[0].roles[0].neuron.raw == raw
    # a tag that says neuron names no Neuron image
    assert adapt(gpu.replace("vllm-openai:0.9.1", "vllm-openai:neuron")).deployments[0].roles[0].neuron is None


def test_needs_gives_no_gpu_list_for_neuron():
    from ctxlint.physics.needs import _vendor_devices

    [role] = adapt(WORKSHOP).deployments[0].roles
    assert _vendor_devices(role) == ((), "state the KV pool the engine logs: NeuronCores are not in the accelerator "
                                         "catalog")


def test_a_scripts_exported_neuron_variable_says_neuron(tmp_path):
    # sweep 51 (AWS's Neuron quickstarts): `export VLLM_NEURON_FRAMEWORK=...` before `vllm serve` in a script was
    # not read, so the pool was vLLM's blocks of 16 (64 tokens: CTX201) and CTX208 listed GPUs
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nexport VLLM_NEURON_FRAMEWORK=\"neuronx-distributed-inference\"\n"
                    "vllm serve --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 8 --max-model-len 128 "
                    "--max-num-seqs 4 --no-enable-prefix-caching --num-gpu-blocks-override 4\n")
    assert run(["check", "--isolated", str(path)]).out == ""
    audit = run(["audit", "--isolated", "--format", "json", str(path)]).out
    import json
    [dep] = json.loads(audit)["deployments"]
    assert (dep["prefill_pool"]["tokens"], dep["prefill_pool"]["origin"], dep["verdict"]) == (512, "declared", "fits")
    prefix = path.with_name("prefix.sh")
    prefix.write_text("#!/bin/bash\nNEURON_RT_VISIBLE_CORES=0-7 vllm serve meta-llama/Llama-3.1-8B-Instruct "
                      "--tensor-parallel-size 8 --max-model-len 4096\n")
    out = run(["check", "--isolated", "--select", "CTX208", str(prefix)]).out
    assert "the engine runs on AWS Neuron (NEURON_RT_VISIBLE_CORES)" in out and "H100" not in out
    assert out.startswith(f"{prefix}:2:")
