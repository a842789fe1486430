"""Engine flags given as args to an engine's image whose entrypoint ctxlint does not know: a reference in the tag or
the registry (`rocm/vllm:${TAG}`, `${REG}/rocm/vllm:latest`) still names the repository, so the flags are vLLM's
and said to be unread, as for `rocm/vllm:latest`; before, any `$` in the image dropped the container silently."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: vllm}}
spec:
  containers:
    - name: vllm
      image: {image}
      args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "65536"]
"""


def _unread(image):
    return [d for d in adapt(POD.format(image=image), "pod.yaml").diagnostics if d.kind == "unresolved-value"]


@pytest.mark.parametrize("image", ["rocm/vllm:latest", "rocm/vllm:${TAG}", "rocm/vllm:rocm6.3_${VLLM_VERSION}",
                                   "${REGISTRY}/rocm/vllm:${TAG:-latest}", "rocm/vllm:$TAG"])
def test_a_variable_tag_leaves_the_engine_named(image):
    [unread] = _unread(image)
    assert unread.message == (
        f"the image {image} is vllm's but ctxlint does not know what its entrypoint runs, so --model, "
        f"--max-model-len are not read as vllm flags and this container is not checked; state the command that "
        f"starts it (`vllm serve ...`)")


@pytest.mark.parametrize("image", ["${VLLM_IMAGE}", "rocm/${NAME}:${TAG}", "rocm/vllm-${FLAVOUR}:1"])
def test_a_reference_in_the_name_is_not_read_as_the_engine(image):
    # which image runs is not known: never vLLM's "is vllm's" (the unresolved-image reading speaks for `${VLLM_IMAGE}`)
    assert all("is vllm's" not in d.message for d in _unread(image))
