"""Red Hat AI Inference Server's CUDA image starts vLLM's OpenAI server, so arguments alone are vLLM flags."""
from __future__ import annotations

from tests.adapters.kit import adapt, arg, at

RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: rhaiis-cuda
spec:
  supportedModelFormats: [{autoSelect: true, name: vLLM}]
  containers:
    - name: kserve-container
      image: {image}
      args: [--port=8080, --model=/mnt/models, --max-model-len=32768]
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""


def test_server_arguments_to_the_rhaiis_cuda_image_are_read():
    # Red Hat's "vLLM server arguments" guide (3.0-3.2) runs `registry.redhat.io/rhaiis/vllm-cuda-rhel9:<tag>
    # --model ... --max-model-len 16384`; a ServingRuntime that passes args with no command (sweep k30: the shape of
    # ailee-1111/openshift-ai-gitops2@248c0263:infra/poc/model-serving/servingruntime.yaml) was CTX008, not checked
    text = RUNTIME.replace("{image}", "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.1")
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert dep.engine.name.value == "vllm"
    assert at(text, arg(role, "max_model_len").source) == "32768"


def test_an_image_with_no_sourced_entrypoint_stays_unread():
    # OpenShift AI's `rhaii/` build: nothing read says what it starts, so its arguments are still not guessed at
    text = RUNTIME.replace("{image}", "registry.redhat.io/rhaii/vllm-cuda-rhel9@sha256:ad06abf3bb52")
    result = adapt(text)
    assert not result.deployments
    assert any("does not know what its entrypoint runs" in d.message for d in result.diagnostics)
