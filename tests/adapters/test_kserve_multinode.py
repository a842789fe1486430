"""KServe multi-node: `workerSpec` sizes the engine, as KServe's controller writes it into the pods.

The shape of opendatahub-io/odh-model-controller config/runtimes/vllm/vllm-multinode-template.yaml.
"""
from __future__ import annotations

from ctxlint.engine import lint_paths
from tests.adapters.kit import adapt, at

RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-multinode-runtime
spec:
  supportedModelFormats:
  - name: vLLM
  containers:
  - name: kserve-container
    image: vllm/vllm-openai:v0.10.1
    command: [vllm, serve]
    args:
    - /mnt/models
    - --max-model-len=32768
    - --tensor-parallel-size=$(TENSOR_PARALLEL_SIZE)
    - --pipeline-parallel-size=$(PIPELINE_PARALLEL_SIZE)
  workerSpec:
    pipelineParallelSize: 2
    tensorParallelSize: 4
    containers:
    - name: worker-container
      image: vllm/vllm-openai:v0.10.1
"""
SERVICE = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama-70b
spec:
  predictor:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
    model:
      modelFormat: {name: vLLM}
      runtime: vllm-multinode-runtime
      storageUri: hf://meta-llama/Llama-3.1-70B-Instruct
    workerSpec: {}
"""
BOTH = RUNTIME + "---\n" + SERVICE


def _role(text):
    res = adapt(text)
    [dep] = res.deployments
    [role] = dep.roles
    return role, res.diagnostics


def test_worker_spec_sizes_are_the_parallel_sizes_kserve_writes():
    # predictor.go multiNodeProcess: TENSOR_PARALLEL_SIZE / PIPELINE_PARALLEL_SIZE from the runtime's workerSpec;
    # before: both unknown (CTX008) and the GPU count withheld
    role, diagnostics = _role(BOTH)
    tp, pp = role.parallelism.tensor, role.parallelism.pipeline
    assert (tp.value, tp.source.line, at(BOTH, tp.source)) == (4, 19, "4")
    assert (pp.value, pp.source.line, at(BOTH, pp.source)) == (2, 18, "2")
    assert diagnostics == []
    # Ray (no multinode/executor-backend annotation in the runtime's spec) and no GPU requests: tensor x pipeline
    # nodes of one GPU each (computeRayNodeAndGPUs); the device is the service's nodeSelector
    count = role.accelerators.count
    assert (count.value, count.raw, count.source.line) == (
        8, "1 per pod x 8 pods (KServe multi-node, Ray executor: head + 7 workers, by their GPU requests)", 19)
    assert role.accelerators.type.value == "A100-SXM4-80GB"
    # multiNodeEnabled := isvc.Spec.Predictor.WorkerSpec != nil: without it KServe sets no variable (unknown)
    role, diagnostics = _role(BOTH.replace("    workerSpec: {}\n", ""))
    assert role.parallelism.tensor is None and role.accelerators.count is None
    assert diagnostics[0].message.startswith("values ctxlint cannot resolve: --tensor-parallel-size "
                                             "$(TENSOR_PARALLEL_SIZE) (TENSOR_PARALLEL_SIZE is not set in the file)")


def test_the_services_sizes_replace_the_runtimes():
    text = BOTH.replace("    workerSpec: {}", "    workerSpec: {tensorParallelSize: 2}")
    role, _ = _role(text)
    tp = role.parallelism.tensor
    assert (tp.value, tp.source.path, tp.source.line) == (2, "spec.predictor.workerSpec.tensorParallelSize", 36)
    assert (role.parallelism.pipeline.value, role.accelerators.count.value) == (2, 4)


def test_the_mp_executor_puts_tensor_parallel_gpus_on_each_pipeline_node():
    # computeMpNodeAndGPUs, chosen by the runtime's spec.annotations (ServingRuntimeSpec.Annotations)
    text = BOTH.replace("spec:\n  supportedModelFormats", "spec:\n  annotations:\n    multinode/executor-backend: mp\n"
                        "  supportedModelFormats")
    role, _ = _role(text)
    assert role.accelerators.count.raw == ("4 per pod x 2 pods (KServe multi-node, mp executor: head + 1 worker of "
                                           "tensorParallelSize GPUs)")
    # the annotation in metadata is not the one KServe reads: Ray
    meta = BOTH.replace("  name: vllm-multinode-runtime\n", "  name: vllm-multinode-runtime\n  annotations:\n"
                        "    multinode/executor-backend: mp\n", 1)
    assert _role(meta)[0].accelerators.count.value == 8 and "Ray" in _role(meta)[0].accelerators.count.raw


def test_ray_gpus_follow_the_requests():
    # GPU requests (not limits) of the head and of the worker container; the worker's merged with the service's
    text = BOTH.replace("    - --pipeline-parallel-size=$(PIPELINE_PARALLEL_SIZE)\n",
                        "    - --pipeline-parallel-size=$(PIPELINE_PARALLEL_SIZE)\n"
                        "    resources: {requests: {nvidia.com/gpu: 4}}\n").replace(
        "    workerSpec: {}", "    workerSpec:\n      containers:\n      - name: worker-container\n"
        "        resources: {requests: {nvidia.com/gpu: \"3\"}}")
    role, _ = _role(text)
    # 8 GPUs, 3 a worker: ceil(8 / 3) = 3 nodes; the head's own request (4) stays: 4 + 2 x 3 = 10
    assert (role.accelerators.count.value, role.accelerators.count.raw) == (
        10, "10 (KServe multi-node, Ray executor: head 4 + 2 workers x 3, by their GPU requests)")
    from ctxlint.adapters.kserve_multinode import _ray

    assert _ray(8, 4, 4) == (2, 4, 4) and _ray(8, 0, 3) == (3, 3, 2) and _ray(8, 8, 4) == (1, 0, 8)
    assert _ray(5, 2, 0) == (4, 1, 2) and _ray(5, 0, 0) == (5, 1, 1)  # only the head's; none (KServe's own test: 5)


def test_a_runtime_read_alone_gets_its_own_sizes():
    role, diagnostics = _role(RUNTIME)
    assert (role.parallelism.tp, role.parallelism.pp, role.accelerators.count.value) == (4, 2, 8)
    assert diagnostics == []


def test_sizes_in_a_sibling_file_point_at_that_file(tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    (tmp_path / "d/runtime.yaml").write_text(RUNTIME)
    (tmp_path / "d/isvc.yaml").write_text(SERVICE.replace("workerSpec: {}", "workerSpec: {tensorParallelSize: 8}"))
    monkeypatch.chdir(tmp_path)
    [dep] = lint_paths(["d"]).deployments
    [role] = dep.roles
    tp, pp = role.parallelism.tensor, role.parallelism.pipeline
    assert (tp.value, tp.source.file, tp.source.line, tp.source.col) == (8, "d/isvc.yaml", 13, 38)
    assert (pp.value, pp.source.file, pp.source.line, pp.source.col) == (2, "d/runtime.yaml", 18, 27)
    assert (role.accelerators.count.value, role.accelerators.count.source.file) == (16, "d/isvc.yaml")


def test_the_multi_node_count_keeps_the_vendor_of_the_gpus_requested():
    # the count sits at the parallel size, not at the resource's key: the resource says AMD (CTX208's cards)
    from ctxlint.physics.needs import _AMD, _vendor_devices

    amd = BOTH.replace("    - --pipeline-parallel-size=$(PIPELINE_PARALLEL_SIZE)\n",
                       "    - --pipeline-parallel-size=$(PIPELINE_PARALLEL_SIZE)\n"
                       "    resources: {requests: {amd.com/gpu: 1}}\n")
    role, _ = _role(amd)
    assert (role.accelerators.count.value, role.accelerators.resource) == (8, "amd.com/gpu")
    assert _vendor_devices(role)[0] == _AMD
