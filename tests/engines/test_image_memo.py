"""What an image says is kept by its text (images._memo): the same answers as reading it afresh (the functions as
written, `__wrapped__`), for every image the samples and the real corpus name and made-up ones, asked twice, and
for what is no str; the memory is bounded."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from conftest import REPO, SHARED
from ctxlint.engines import image_builds, images

READERS = [images.engine_from_image, image_builds.image_vendor, image_builds.is_cpu_build]
_IMAGE = re.compile(r"""(?:image:|--image[= ]|docker run [^\n]*?)\s*["']?([\w.${}:/@+-]+)""")


def _written_images():
    found = set()
    for root in (REPO / "samples", SHARED / "corpus" / "real"):
        for path in Path(root).rglob("*"):
            if path.is_file() and path.stat().st_size < 2_000_000:
                try:
                    found.update(_IMAGE.findall(path.read_text(encoding="utf-8")))
                except (UnicodeDecodeError, OSError):
                    continue
    return sorted(found)


def _made_up_images():
    repos = ["vllm/vllm-openai", "rocm/vllm", "lmsysorg/sglang", "ghcr.io/huggingface/text-generation-inference",
             "nvcr.io/nvidia/tritonserver", "nvcr.io/nvidia/tensorrt-llm/release", "ggml-org/llama.cpp",
             "openmmlab/lmdeploy", "opea/vllm-gaudi", "localhost:5000/vllm-tpu", "quay.io/modh/text-generation-inference",
             "${REGISTRY:-opea}/vllm-rocm", "public.ecr.aws/deep-learning-containers/vllm", "my/app"]
    tags = ["", ":latest", ":v0.8.5", ":0.11.0rc2", ":v0.5.5-rocm700-mi30x", ":24.10-trtllm-python-py3", ":server-cuda",
            ":full-rocm", ":server-intel", ":b4500", ":${TAG:-v0.6.6}", ":cu124", ":2.4.0-intel-cpu", "@sha256:abc"]
    return [repo + tag for repo, tag in itertools.product(repos, tags)] + ["", "  ", " vllm/vllm-openai:v0.9.0 "]


@pytest.mark.parametrize("read", READERS, ids=lambda f: f.__name__)
def test_kept_answers_are_the_fresh_ones(read):
    written = _written_images()
    # the samples and the corpus name many images (the samples alone a few, when ../shared is not beside the repo)
    assert len(written) > (50 if (SHARED / "corpus" / "real").is_dir() else 5)
    for image in written + _made_up_images() + written:  # the second time from the memory
        assert read(image) == read.__wrapped__(image), image
    for other in (None, 3, ["vllm/vllm-openai"], b"vllm/vllm-openai"):  # no str: read afresh, never kept
        assert read(other) == read.__wrapped__(other)
    assert not any(type(key) is not str for key in read.cache)


@pytest.mark.parametrize("read", READERS, ids=lambda f: f.__name__)
def test_memory_is_bounded(read):
    read.cache.clear()
    for i in range(images._MEMO_SIZE + 50):
        image = f"registry.example/vllm-{i}:v0.{i}.0"
        assert read(image) == read.__wrapped__(image)
    assert len(read.cache) == images._MEMO_SIZE
    read.cache.clear()


@pytest.mark.parametrize("image, splits", [
    # huggingface/text-generation-inference: each Dockerfile's ENTRYPOINT at the release's tag (image_builds.py)
    ("ghcr.io/huggingface/text-generation-inference:1.4.5", False),
    ("ghcr.io/huggingface/text-generation-inference:2.0.0", True),
    ("ghcr.io/huggingface/text-generation-inference:3.3.6", True),
    ("ghcr.io/huggingface/text-generation-inference:2.0.3-rocm", False),
    ("ghcr.io/huggingface/text-generation-inference:2.0.4-rocm", True),
    ("ghcr.io/huggingface/text-generation-inference:3.3.6-gaudi", True),
    ("ghcr.io/huggingface/text-generation-inference:3.3.6-neuron", True),
    ("ghcr.io/huggingface/text-generation-inference:3.3.5-intel-xpu", False),
    ("ghcr.io/huggingface/text-generation-inference:2.4.1-intel-cpu", False),
    ("ghcr.io/huggingface/text-generation-inference:3.0.1-trtllm", False),
    ("ghcr.io/huggingface/text-generation-inference:${TAG:-2.4.1}", True),  # compose's default
    ("ghcr.io/huggingface/tgi-gaudi:2.3.1", False),  # huggingface/tgi-gaudi@b126bf4: the launcher
    ("ghcr.io/huggingface/text-generation-inference:latest", None),
    ("ghcr.io/huggingface/text-generation-inference:sha-7e7e0ba", None),
    ("ghcr.io/huggingface/text-generation-inference", None),
    ("ghcr.io/huggingface/text-generation-inference:${TAG}", None),
    ("vllm/vllm-openai:v0.9.0", None), (None, None), (3, None),
])
def test_tgi_entrypoint_splits_by_image_and_tag(image, splits):
    from ctxlint.engines.image_builds import tgi_entrypoint_splits
    assert tgi_entrypoint_splits(image) is splits
