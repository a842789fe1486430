"""An image of a fork whose tag names no vLLM release but whose line ends before one (images.release_below:
opea/vllm-gaudi is HabanaAI/vllm-fork, the v0.9 line): a flag vLLM dropped later is read, no CTX301 (sweep 51:
13 false errors over OPEA's Gaudi compose files)."""
from __future__ import annotations

import pytest

from ctxlint.engines.images import release_below
from tests.adapters.kit import adapt

COMPOSE = """\
services:
  vllm-service:
    image: {image}
    command: --model meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 1 --host 0.0.0.0 --port 80 --block-size 128 --max-num-seqs 256 --max-seq-len-to-capture 2048
"""


def _refusals(text):
    return [d for d in adapt(text, "compose.yaml").diagnostics if d.kind == "engine-rejects-value"]


@pytest.mark.parametrize("image", ["opea/vllm-gaudi:1.22.0", "opea/vllm-gaudi:1.4", "docker.io/opea/vllm-gaudi:latest"])
def test_the_gaudi_fork_reads_a_flag_dropped_after_its_line(image):
    assert not _refusals(COMPOSE.format(image=image))


@pytest.mark.parametrize("image, said", [
    ("vllm/vllm-openai:latest", "vllm 0.11.0 and later would refuse to start"),  # the release may be 0.11 or later
    ("vllm/vllm-openai:v0.11.0", "vllm 0.11.0 would refuse to start"),
])
def test_vllms_own_images_still_refuse_it(image, said):
    [refusal] = _refusals(COMPOSE.format(image=image))
    assert refusal.message.startswith(said)


def test_release_below():
    assert release_below("opea/vllm-gaudi:1.22.0") == "0.10.0"
    assert release_below("registry.example.com/opea/vllm-gaudi:1.4") == "0.10.0"
    assert release_below("opea/vllm:1.4") is None and release_below("vllm/vllm-openai:latest") is None
    assert release_below(None) is None
