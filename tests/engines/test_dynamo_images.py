"""NVIDIA Dynamo's runtime images (lint/engines/dynamo_images.py): a tag names the engine release Dynamo's own pages
list for it, and no other tag names one."""
from __future__ import annotations

import pytest

from ctxlint.adapters.workload_versions import image_release
from ctxlint.engine import lint_text
from ctxlint.engines import engine_from_image
from ctxlint.engines.dynamo_images import (ARTIFACTS_1_2_1, COMPATIBILITY_1_2_0, COMPATIBILITY_1_5_1,
                                           COMPATIBILITY_1_6_0, DEPRECATIONS_1_6_2, DEPRECATIONS_1_7_1, EARLY_ACCESS_1_3_0,
                                           INVENTORY_1_1_1, INVENTORY_1_2_1,
                                           RELEASES, RELEASES_1_3_0, SUPPORT_MATRIX_1_5_0, dynamo_release, source)
from ctxlint.engines.images import split_image
from ctxlint.engines.release_unknown import why_unknown

NGC = "nvcr.io/nvidia/ai-dynamo/"

# The tags the srt-slurm recipes and Dynamo graphs of the sweeps run (NVIDIA/srt-slurm, NVIDIA/srt-slurm-recipes,
# ai-dynamo/dynamo's recipes/), with the release Dynamo's pages give, or None where no page lists the tag.
SEEN = [
    ("tensorrtllm-runtime:1.1.1", "trtllm", "1.3.0rc11", INVENTORY_1_1_1),
    ("tensorrtllm-runtime:0.8.1.post1", "trtllm", "1.2.0rc6.post2", INVENTORY_1_1_1),
    ("tensorrtllm-runtime:0.8.1.post3", "trtllm", "1.2.0rc6.post3", INVENTORY_1_1_1),
    ("tensorrtllm-runtime:0.8.1.post2", "trtllm", None, None),  # the patch train's pages skip .post2
    ("tensorrtllm-runtime:1.1.0-dev.3", "trtllm", "1.3.0rc11", INVENTORY_1_1_1),
    ("tensorrtllm-runtime:1.3.0-dev.1-cuda13", "trtllm", "1.3.0rc17", INVENTORY_1_2_1),
    ("tensorrtllm-runtime:1.3.0-deepseek-v4-dev.1", "trtllm", "1.3.0rc15.post1", EARLY_ACCESS_1_3_0),
    ("tensorrtllm-runtime:1.3.0", "trtllm", "1.3.0rc19", RELEASES_1_3_0),
    ("tensorrtllm-runtime:1.3.0-efa", "trtllm", "1.3.0rc19", RELEASES_1_3_0),
    ("tensorrtllm-runtime:1.4.2", "trtllm", "1.3.0rc22", SUPPORT_MATRIX_1_5_0),
    ("tensorrtllm-runtime:1.5.0", "trtllm", "1.3.0rc25", SUPPORT_MATRIX_1_5_0),
    ("tensorrtllm-runtime:1.5.1", "trtllm", "1.3.0rc25", COMPATIBILITY_1_5_1),
    ("tensorrtllm-runtime:1.6.0", "trtllm", "1.3.0rc29", COMPATIBILITY_1_6_0),
    ("tensorrtllm-runtime:1.6.1", "trtllm", None, None),  # no page at hand gives v1.6.1's pins
    ("tensorrtllm-runtime:1.6.2", "trtllm", "1.3.0rc29", DEPRECATIONS_1_6_2),
    ("tensorrtllm-runtime:1.7.0", "trtllm", "1.4.0rc2", DEPRECATIONS_1_6_2),
    ("tensorrtllm-runtime:1.7.1", "trtllm", "1.4.0rc2", DEPRECATIONS_1_7_1),
    ("tensorrtllm-runtime:1.7.0-efa", "trtllm", None, None),  # no page at hand lists 1.7's -efa tags
    ("tensorrtllm-runtime:1.3.0-minimax-m3-dev.1", "trtllm", None, None),  # its page names no engine release
    ("tensorrtllm-runtime:0.6.1-cuda13", "trtllm", "1.2.0rc1", INVENTORY_1_1_1),  # not 0.6.1's 1.1.0rc5
    ("tensorrtllm-runtime:1.2.0", "trtllm", "1.3.0rc14", COMPATIBILITY_1_2_0),
    ("vllm-runtime:1.1.1", "vllm", "0.19.0", INVENTORY_1_1_1),
    ("vllm-runtime:1.1.1-cuda13", "vllm", "0.19.0", INVENTORY_1_1_1),
    ("vllm-runtime:1.2.1", "vllm", "0.20.1", INVENTORY_1_2_1),
    ("vllm-runtime:1.2.0", "vllm", "0.20.1", COMPATIBILITY_1_2_0),
    ("vllm-runtime:1.0.0", "vllm", "0.16.0", INVENTORY_1_1_1),
    ("vllm-runtime:0.8.0", "vllm", "0.12.0", INVENTORY_1_1_1),
    ("vllm-runtime:0.7.0.post2", "vllm", "0.11.2", INVENTORY_1_1_1),
    ("vllm-runtime:0.6.1.post1", "vllm", "0.11.0", INVENTORY_1_1_1),
    ("vllm-runtime:1.2.0-deepseek-v4-cuda13-dev.3", "vllm", "0.20.1", INVENTORY_1_2_1),
    ("vllm-runtime:1.3.0-nemotron-ultra-dev.1", "vllm", "0.22.0", EARLY_ACCESS_1_3_0),
    # the early access page has vLLM 0.22.0, its recipe page "vLLM 0.21.0": unknown
    ("vllm-runtime:1.3.0-nemotron-super-dev.1", "vllm", None, None),
    ("vllm-runtime:1.3.0-kimi-k2.6-dev.1", "vllm", None, None),
    ("vllm-runtime:1.3.0", "vllm", "0.23.0", RELEASES_1_3_0),
    ("vllm-runtime:1.3.0-efa", "vllm", "0.23.0", RELEASES_1_3_0),
    ("vllm-runtime:1.3.0-cuda13", "vllm", None, None),  # v1.3.0 ships CUDA 13 only, as the plain tag
    ("vllm-runtime:1.3.1", "vllm", "0.23.0", SUPPORT_MATRIX_1_5_0),
    ("vllm-runtime:1.4.0", "vllm", "0.26.0", SUPPORT_MATRIX_1_5_0),
    ("vllm-runtime:1.5.0", "vllm", "0.28.0", SUPPORT_MATRIX_1_5_0),
    ("vllm-runtime:1.5.1", "vllm", "0.28.0", COMPATIBILITY_1_5_1),
    ("vllm-runtime:1.6.0", "vllm", "0.31.0", COMPATIBILITY_1_6_0),
    ("vllm-runtime:1.6.1", "vllm", None, None),
    ("vllm-runtime:1.6.2", "vllm", "0.31.0", DEPRECATIONS_1_6_2),
    ("vllm-runtime:1.7.0", "vllm", "0.33.0", DEPRECATIONS_1_6_2),
    ("vllm-runtime:1.7.1", "vllm", "0.33.0", DEPRECATIONS_1_7_1),
    ("vllm-runtime:1.6.0-efa", "vllm", None, None),
    ("vllm-runtime:1.4.0-efa", "vllm", None, None),  # the support matrix names releases, not their -efa tags
    ("vllm-runtime:my-tag", "vllm", None, None),
    ("sglang-runtime:1.1.1-cuda13", "sglang", "0.5.10.post1", INVENTORY_1_1_1),
    ("sglang-runtime:1.2.1", "sglang", "0.5.11", INVENTORY_1_2_1),
    ("sglang-runtime:1.0.0", "sglang", "0.5.9", INVENTORY_1_1_1),
    ("sglang-runtime:0.8.0", "sglang", "0.5.6.post2", INVENTORY_1_1_1),
    ("sglang-runtime:1.3.0-dev.1-cuda13", "sglang", "0.5.12.post1", INVENTORY_1_2_1),
    ("sglang-runtime:1.2.0-sglang-deepseek-v4-b200-dev.1", "sglang", None, None),
    ("sglang-runtime:1.2.0-deepseek-v4-cuda12-dev.2", "sglang", None, None),  # "SGLang upstream DSv4 preview"
    ("sglang-runtime:1.3.0", "sglang", "0.5.14", RELEASES_1_3_0),
    ("sglang-runtime:1.3.0-efa", "sglang", "0.5.14", RELEASES_1_3_0),
    ("sglang-runtime:1.4.1", "sglang", "0.5.16", SUPPORT_MATRIX_1_5_0),
    ("sglang-runtime:1.5.0", "sglang", "0.5.18", SUPPORT_MATRIX_1_5_0),
    ("sglang-runtime:1.5.1", "sglang", "0.5.18", COMPATIBILITY_1_5_1),
    ("sglang-runtime:1.6.0", "sglang", "0.5.21", COMPATIBILITY_1_6_0),
    ("sglang-runtime:1.6.1", "sglang", None, None),
    ("sglang-runtime:1.6.2", "sglang", "0.5.21", DEPRECATIONS_1_6_2),
    ("sglang-runtime:1.7.0", "sglang", "0.5.23", DEPRECATIONS_1_6_2),
    ("sglang-runtime:1.7.1", "sglang", "0.5.23", DEPRECATIONS_1_7_1),
    ("sglang-runtime:1.7.1-efa", "sglang", None, None),
    ("sglang-runtime:1.3.0-glm-5.2-dev.1", "sglang", None, None),  # "SGLang cherry-picks", no release
    ("sglang-runtime:1.4.0-inkling-dev.1", "sglang", None, None),
]


@pytest.mark.parametrize("image,engine,release,where", SEEN)
def test_a_runtime_tag_names_the_release_dynamo_lists(image, engine, release, where):
    assert engine_from_image(NGC + image) == (engine, release)
    assert source(*split_image(NGC + image)) == where
    # a runtime image's release reaches a role only where Dynamo states it (workload_versions._release)
    assert image_release(engine, NGC + image) == release


def test_enroot_and_mirrored_paths_are_the_same_image():
    # srt-slurm's `model.container: nvcr.io#nvidia/...` (NVIDIA/srt-slurm recipes/trtllm/...), a mirror keeping the path
    assert engine_from_image("nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post3") == ("trtllm", "1.2.0rc6.post3")
    assert engine_from_image("mirror.example/nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0") == ("vllm", "0.16.0")
    # another owner's image of the same name is no Dynamo release
    assert engine_from_image("quay.io/me/vllm-runtime:1.1.1") == ("vllm", None)
    assert dynamo_release("quay.io/me/vllm-runtime", "1.1.1") is None
    assert engine_from_image(NGC + "vllm-runtime") == ("vllm", None)  # untagged: whatever `latest` is that day


def test_every_row_names_a_page_and_an_engine_release():
    # the pages' rows: 29 vLLM, 24 SGLang, 24 TensorRT-LLM stable tags in the v1.1.1 inventory, its pre-release tags
    # (4, 3, 4), v1.2.0's (2, 2, 1), the v1.2.1 inventory's (7, 5, 4), the one tag only v1.2.1's .mdx page lists,
    # v1.3.0's two a runtime, the early access builds' (1, 0, 1), the support matrix's five releases 1.3.1-1.5.0 and
    # the compatibility cards' v1.5.1 and v1.6.0, the deprecations ledgers' v1.6.2, v1.7.0 and v1.7.1
    assert {engine: len(tags) for engine, tags in RELEASES.items()} == {"vllm": 55, "sglang": 47, "trtllm": 46}
    pages = {where for tags in RELEASES.values() for _, where in tags.values()}
    assert pages == {INVENTORY_1_1_1, COMPATIBILITY_1_2_0, INVENTORY_1_2_1, ARTIFACTS_1_2_1, RELEASES_1_3_0,
                     EARLY_ACCESS_1_3_0, SUPPORT_MATRIX_1_5_0, COMPATIBILITY_1_5_1, COMPATIBILITY_1_6_0,
                     DEPRECATIONS_1_6_2, DEPRECATIONS_1_7_1}


def test_sglangs_efa_image_of_1_2_1_is_sglang_0_5_11():
    # ai-dynamo/dynamo@724168c014d5c33d492a0adc75e6e9984401472d:docs/reference/release-artifacts.mdx lists
    # sglang-runtime:1.2.1-efa-amd64 among v1.2.1's published tags; v1.2.1 ships SGLang 0.5.11 (its compatibility.mdx,
    # v1.2.0's row, and the inventory's "Same backend versions as v1.2.0"). It was refused as unlisted.
    image = NGC + "sglang-runtime:1.2.1-efa-amd64"
    assert engine_from_image(image) == ("sglang", "0.5.11")
    assert image_release("sglang", image) == "0.5.11"
    assert source(*split_image(image)) == ARTIFACTS_1_2_1
    assert engine_from_image(NGC + "sglang-runtime:1.1.1-efa-amd64") == ("sglang", None)  # v1.1.1 published none


def test_an_unlisted_tag_says_why_its_release_is_unknown():
    image = NGC + "sglang-runtime:1.2.0-sglang-deepseek-v4-b200-dev.1"
    assert why_unknown("sglang", image) == (
        f"{image} is a Dynamo runtime image whose tag is not one Dynamo's release pages list with the sglang "
        "release it holds (engines/dynamo_images.py)")


def test_a_1_6_0_worker_is_read_at_its_engine_release_without_refusals():
    # Dynamo v1.6.0 ships vLLM 0.31.0 (its compatibility card); the flag tables know vLLM through 0.34, so a plain
    # worker is read at 0.31.0 (CTX401's advisory names it) and no flag of it is refused (CTX301)
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: w\n          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0\n"
        '          command: ["python3", "-m", "dynamo.vllm", "--model", "meta-llama/Llama-3.1-8B-Instruct",\n'
        '                    "--max-model-len", "131072", "--num-gpu-blocks-override", "4096",\n'
        '                    "--enable-prefix-caching", "--gpu-memory-utilization", "0.9"]\n'
        '          resources: {limits: {nvidia.com/gpu: "1"}}\n'
        "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}\n")
    found = lint_text(text, "worker.yaml").findings
    rules = {x.rule for x in found}
    assert "CTX301" not in rules
    assert any(x.rule == "CTX401" and "vLLM 0.31.0" in x.message for x in found)


def test_a_1_7_0_worker_is_vllm_0_33_0_and_refuses_a_flag_from_0_34_0():
    # Dynamo v1.7.0 ships vLLM 0.33.0 (the v1.6.2 docs' deprecations ledger, "Upgrade to v1.7.0"). The tag was unknown:
    # --enable-extensible-kv-cache (vLLM 0.34.0 on) went unreported, as the image might have held 0.34, and the pool
    # was a band over every release (point 25,440 tokens, 0.34's); 0.33.0 has no such flag (CTX301, an error) and
    # its pool is 0.28's rules (point 27,216)
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: w\n          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.7.0\n"
        '          command: ["python3", "-m", "dynamo.vllm", "--model", "meta-llama/Llama-3.1-8B-Instruct",\n'
        '                    "--max-model-len", "30000", "--enable-extensible-kv-cache",\n'
        '                    "--gpu-memory-utilization", "0.9"]\n'
        '          resources: {limits: {nvidia.com/gpu: "1"}}\n'
        "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n")
    found = lint_text(text, "worker.yaml").findings
    refused = [x for x in found if x.rule == "CTX301"]
    assert len(refused) == 1 and refused[0].severity == "error"
    assert "vllm 0.33.0" in refused[0].message and "--enable-extensible-kv-cache" in refused[0].message
    assert (refused[0].line, refused[0].column) == (11, 50)
    assert any(x.rule == "CTX210" and "point 27,216" in x.message for x in found)
