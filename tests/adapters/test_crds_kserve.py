"""KServe: an InferenceService merged over the ServingRuntime of the same file it names."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

# The pattern of robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/vllm.yml: the runtime holds the image and
# the memory fraction, the service the model and its context length.
RUNTIME_AND_SERVICE = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: nm-vllm
spec:
  supportedModelFormats:
    - name: huggingface
      autoSelect: true
  nodeSelector:
    cloud.google.com/gke-accelerator: nvidia-l4
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.4.2
      args: ["--gpu-memory-utilization", "0.5", "--served-model-name", "{{.Name}}", "--max-num-seqs",
             "{{ .Labels.seqs }}", "--max-model-len", "{{.Annotations.ctx}}", "--kv-cache-dtype", "{{.Annotations.kv}}"]
      env:
        - {name: VLLM_ALLOW_LONG_MAX_MODEL_LEN, value: "0"}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen
  labels: {seqs: "64"}
spec:
  predictor:
    minReplicas: 2
    model:
      runtime: nm-vllm
      modelFormat:
        name: huggingface
      args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "16384"]
      env:
        - {name: VLLM_ALLOW_LONG_MAX_MODEL_LEN, value: "1"}
      resources:
        limits:
          nvidia.com/gpu: "1"
"""


def test_an_inference_service_runs_the_runtime_of_the_file_it_names():
    # utils.go MergeRuntimeContainers: the runtime's args, then the service's (the last --max-model-len
    # wins); env merged by name (the service's value); MergePodSpec: the runtime's nodeSelector
    res = adapt(RUNTIME_AND_SERVICE)
    [dep] = res.deployments  # the runtime is not a model-less deployment of its own
    [role] = dep.roles
    assert (dep.display_name, dep.engine.version.value, dep.model.id.value) == ("qwen", "0.4.2",
                                                                                "Qwen/Qwen2.5-7B-Instruct")
    assert at(RUNTIME_AND_SERVICE, dep.engine.version.source) == "v0.4.2"
    memory = role.arg("gpu_memory_utilization")
    assert memory.value == 0.5 and (memory.source.line, at(RUNTIME_AND_SERVICE, memory.source)) == (14, "0.5")
    assert role.context_length.value == 16384 and role.context_length.source.line == 31
    assert role.accelerators.type.value == "L4" and role.accelerators.count.value == 1 and role.replicas.value == 2
    assert role.arg("VLLM_ALLOW_LONG_MAX_MODEL_LEN").value == "1"
    # ReplacePlaceholders renders with the service's metadata: {{.Name}} and a label it writes are known
    assert role.arg("served_model_name").value == ["qwen"] and role.arg("max_num_seqs").value == 64
    # an annotation the service does not write is not known; the runtime's --max-model-len is replaced
    [unknown] = res.diagnostics
    assert unknown.message.startswith("values ctxlint cannot resolve: --kv-cache-dtype {{ .Annotations.kv }} (a "
                                      "template KServe fills in); the checks")


def test_the_runtime_is_looked_up_as_kserve_does():
    # GetServingRuntime: a ServingRuntime of the service's namespace, else a ClusterServingRuntime
    other = RUNTIME_AND_SERVICE.replace("  name: nm-vllm\n", "  name: nm-vllm\n  namespace: a\n", 1).replace(
        "  name: qwen\n", "  name: qwen\n  namespace: b\n")
    res = adapt(other)
    assert [d.display_name for d in res.deployments] == ["nm-vllm", "qwen"]
    assert [d.engine.version for d in res.deployments][1] is None  # read alone, as before
    cluster = other.replace("kind: ServingRuntime", "kind: ClusterServingRuntime")
    [dep] = adapt(cluster).deployments
    assert dep.engine.version.value == "0.4.2"
    # a runtime without KServe's `kserve-container` is no runtime to merge over; one no service names stays
    assert len(adapt(RUNTIME_AND_SERVICE.replace("kserve-container", "vllm")).deployments) == 2
    unused = RUNTIME_AND_SERVICE.replace("runtime: nm-vllm", "runtime: other")
    assert [d.display_name for d in adapt(unused).deployments] == ["nm-vllm", "qwen"]


def test_a_runtime_that_runs_the_hugging_face_server_keeps_its_reading():
    # kserve-huggingfaceserver: no engine image, so the server's vLLM backend reads the merged args
    text = RUNTIME_AND_SERVICE.replace("vllm/vllm-openai:v0.4.2", "kserve/huggingfaceserver:v0.15.0").replace(
        '"--model", "Qwen/Qwen2.5-7B-Instruct", ', "").replace(
        "      resources:\n", "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n      resources:\n")
    [dep] = adapt(text).deployments
    assert dep.engine.name.value == "vllm" and dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct"
    assert dep.roles[0].arg("gpu_memory_utilization").value == 0.5
    backend = text.replace('"16384"]', '"16384", "--backend", "huggingface"]')
    assert adapt(backend).deployments == []


def test_runtime_version_replaces_the_image_tag():
    # review of 3ef6f4b: predictor.go buildPodSpec calls UpdateImageTag after the merge, so `runtimeVersion`
    # is the engine's release (a digest stays as written)
    text = RUNTIME_AND_SERVICE.replace("      runtime: nm-vllm\n", "      runtime: nm-vllm\n      runtimeVersion: v0.6.3\n")
    [dep] = adapt(text).deployments
    assert (dep.engine.version.value, at(text, dep.engine.version.source)) == ("0.6.3", "v0.6.3")
    [dep] = adapt(text.replace("vllm/vllm-openai:v0.4.2", "vllm/vllm-openai@sha256:abc")).deployments
    assert dep.engine.version is None
