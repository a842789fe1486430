"""NVIDIA Dynamo's runtime images (`nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1`) and the engine release each tag
holds, as Dynamo's own repository states it.

A runtime image's tag numbers Dynamo's release, not the engine's: `vllm-runtime:1.1.1` runs vLLM 0.19.0. Dynamo's
release inventory (docs/reference/release-artifacts.md) lists every published image:tag with the engine release it
ships; its compatibility page lists each release's backend versions. Only tags those pages name are here, each with
the page it was read from: a tag they do not list (`tensorrtllm-runtime:0.8.1.post2`, `1.4.0-efa`, `1.3.0-cuda13`)
is unknown, never inferred from a neighbour (a patch train can move one engine alone: 0.8.1.post1
and .post3 ship different TensorRT-LLM builds, `0.6.1-cuda13` another TensorRT-LLM than `0.6.1`). Dev and early
access tags are read only where the inventory states the engine release they carry (`1.3.0-dev.1-cuda13`,
`1.1.0-dev.3`, vLLM's `1.2.0-deepseek-v4-cuda13-dev.3`, TensorRT-LLM's `1.3.0-deepseek-v4-dev.1`); the SGLang DeepSeek-V4 previews run an upstream preview
image that names no release (`sglang-runtime:1.2.0-deepseek-v4-cuda12-dev.2`: "SGLang upstream DSv4 preview";
`1.2.0-sglang-deepseek-v4-b200-dev.1`, "SGLang (DSv4 Blackwell preview)", is built on lmsysorg/sglang:
deepseek-v4-blackwell pinned by digest, ai-dynamo/dynamo recipes/deepseek-v4/container/README.md: no release and no
commit ctxlint read), and so do the model builds whose page names no engine release (`1.3.0-kimi-k2.6-dev.1`,
`1.3.0-minimax-m3-dev.1`, `1.3.0-glm-5.2-dev.1`: "SGLang cherry-picks", `1.3.0-cosmos3-dev.1`: vLLM-Omni,
`1.4.0-inkling-dev.1`), one whose pages disagree (`vllm-runtime:1.3.0-nemotron-super-dev.1`: vLLM 0.22.0 on the
early access page, "vLLM 0.21.0" on its recipe page), and tags no page lists (a user's `my-tag`).

Why the pages and not the build files at each tag: the repository's snapshot is too large to bring here, so its
tags could not be checked out; the stored revisions of the two pages are Dynamo's own statement of what each
published image holds (the build's container/context.yaml names the engine's base image; pyproject.toml's extras
are the wheel's pins, which need not be the image's: ai-dynamo/dynamo@004df25aaeaa513c2e90f6de2859040b0cd0b2b6:
pyproject.toml, at version 1.2.0, pins tensorrt-llm==1.3.0rc11 where the 1.2.0 image ships 1.3.0rc14). Loaded only when an image under `nvcr.io/nvidia/ai-dynamo/` is met (images.py).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

# Dynamo's release inventory while v1.1.1 was current: the per-image tables "vllm-runtime", "sglang-runtime",
# "tensorrtllm-runtime" (every stable tag from 0.6.0) and "Pre-Release Artifacts" (v1.1.0-dev.1-3,
# v1.2.0-deepseek-v4-dev.2).
INVENTORY_1_1_1 = "ai-dynamo/dynamo@00552b23362935fcb6f85c23fdd87f03879db20d:docs/reference/release-artifacts.md"
# "Backend Dependencies": v1.2.0 (SGLang 0.5.11, TensorRT-LLM 1.3.0rc14, vLLM 0.20.1) and v1.3.0-dev.1 (0.5.12.post1,
# 1.3.0rc17, 0.22.0); its CUDA table: CUDA 12.9 and 13.0 images for SGLang and vLLM, 13.1 for TensorRT-LLM.
COMPATIBILITY_1_2_0 = ("ai-dynamo/dynamo@01fdd3c2b1577f2f0bff9314c719a5fa46e6a9f0:"
                       "docs/getting-started/compatibility.md")
# The same inventory while v1.2.1 was current ("v1.2.1: Patch release. Same backend versions as v1.2.0", its
# container table, and the pre-release sections v1.3.0-dev.1 and v1.2.0-deepseek-v4-dev.3). The search index that
# holds this revision does not name its commit.
INVENTORY_1_2_1 = "ai-dynamo/dynamo:docs/reference/release-artifacts.md (the revision whose current release is v1.2.1)"
# The page's .mdx successor while v1.2.1 was current: its "Runtime Containers" table lists the tags published for
# v1.2.1, sglang-runtime's `1.2.1-efa-amd64` among them (the .md inventory above has no such row); the engine is
# v1.2.1's, SGLang 0.5.11 (the inventory's "Same backend versions as v1.2.0"; compatibility.mdx at the same commit,
# v1.2.0's row). The tags of the other rows are listed there too.
ARTIFACTS_1_2_1 = "ai-dynamo/dynamo@724168c014d5c33d492a0adc75e6e9984401472d:docs/reference/release-artifacts.mdx"

# The docs site's machine-readable release inventory at v1.3.0 (docs/fern/components/releases.data.ts generates it):
# v1.3.0's pins SGLang 0.5.14, TensorRT-LLM 1.3.0rc19, vLLM 0.23.0 ("CUDA 12 container images discontinued; EFA
# variants go multi-arch as -efa"), and its "artifacts" tags: `1.3.0` and `1.3.0-efa` for each runtime image.
RELEASES_1_3_0 = "ai-dynamo/dynamo@0b4b0210a05cb2401d43776e224f32caafb9012a:docs/fern/assets/releases.json"
# Dynamo's model early access builds page (v1.4.0 and v1.3.0 lines): tensorrtllm-runtime:1.3.0-deepseek-v4-dev.1
# "Backends: TensorRT-LLM `1.3.0rc15post1`" (TRT-LLM patches over it), vllm-runtime:1.3.0-nemotron-ultra-dev.1
# "Backends: vLLM `v0.22.0` with six container patches" (KV events, conv-state layout, NIXL transfer: none sizes a pool).
EARLY_ACCESS_1_3_0 = ("ai-dynamo/dynamo@752d42bd19aca73e122b9f5c7bb2c2206a192481:"
                      "docs/reference/model-early-access-builds.md")
# Dynamo's published compatibility page, its "Release Support Matrix" (every stable release and patch): v1.3.1 keeps
# v1.3.0's engines; v1.4.0, v1.4.1, v1.4.2 SGLang 0.5.16, TensorRT-LLM 1.3.0rc22, vLLM 0.26.0; v1.5.0 SGLang 0.5.18,
# TensorRT-LLM 1.3.0rc25, vLLM 0.28.0; CUDA 13 only from v1.3.0, so the release's plain tag is its one CUDA image. The
# search index holds the page's revision of 2026-09-24, not the repository file it is built from. Its `-efa` tags are
# not listed there, so they stay unknown.
SUPPORT_MATRIX_1_5_0 = ("https://docs.nvidia.com/dynamo/zh-CN/reference/compatibility, Release Support Matrix "
                        "(the revision of 2026-09-24, whose newest release is v1.5.0)")
# The same page's later revisions, their "Compatibility by Version" card: v1.5.1 (released Oct 6, 2026) SGLang 0.5.18,
# TensorRT-LLM 1.3.0rc25, vLLM 0.28.0, "Backend pins are unchanged from v1.5.0" (the revision whose newest release is
# v1.5.1); v1.6.0 (Oct 21, 2026) SGLang 0.5.21, TensorRT-LLM 1.3.0rc29, vLLM 0.31.0 (the v1.6.0 and v1.6.1 docs'
# revisions, whose newest release is v1.6.0). v1.6.2's, v1.7.0's and v1.7.1's pins are in the deprecations ledgers
# below; no page at hand gives v1.6.1's (its GitHub release notes name no backend: trust stores, Pillow 13, the
# image toolchain; the ai-dynamo 1.6.1 wheel's METADATA pins vllm==0.31.0, sglang==0.5.21, tensorrt-llm==1.3.0rc29
# for its extras, but a wheel's pins need not be the image's, see above), so that tag stays unknown, as do the -efa
# ones of 1.6.x and 1.7.x (no page at hand lists them). vLLM 0.31.0 and 0.33.0 and SGLang 0.5.21 and 0.5.23 are
# inside the flag tables' releases (flags_vllm: through 0.34; flags_sglang: through 0.5.23's wheels), so their
# refusals are the tables' own.
COMPATIBILITY_1_5_1 = ("https://docs.nvidia.com/dynamo/zh-CN/latest/reference/compatibility, Compatibility by Version "
                       "(the revision whose newest release is v1.5.1)")
COMPATIBILITY_1_6_0 = ("https://docs.nvidia.com/dynamo/v1.6.0/reference/compatibility, Compatibility by Version "
                       "(the revision whose newest release is v1.6.0)")
# Dynamo's deprecations ledger, its "Upgrade to" panel, which gives each release line's latest pins and the target's:
# in the v1.6.2 docs, "Upgrade to v1.7.0 ... Pins shown from v1.6.2, the latest release on the v1.6.x line": SGLang
# 0.5.21 -> 0.5.23, TRT-LLM 1.3.0rc29 -> 1.4.0rc2, vLLM 0.31.0 -> 0.33.0 (v1.6.2's pins, then v1.7.0's); in the
# v1.7.1 docs, "Upgrade to v1.7.1 ... Pins shown from v1.7.1": SGLang 0.5.23, TRT-LLM 1.4.0rc2, vLLM 0.33.0, each
# "unchanged" (and v1.6.2's pins again as above). The tags are the releases' plain ones (CUDA 13 only since v1.3.0).
DEPRECATIONS_1_6_2 = ("https://docs.nvidia.com/dynamo/v1.6.2/reference/releases/deprecations, Upgrade to v1.7.0 "
                      "(pins shown from v1.6.2)")
DEPRECATIONS_1_7_1 = ("https://docs.nvidia.com/dynamo/v1.7.1/reference/releases/deprecations, Upgrade to v1.7.1 "
                      "(pins shown from v1.7.1)")

# The image's name -> the engine it runs.
ENGINES = {"vllm-runtime": "vllm", "sglang-runtime": "sglang", "tensorrtllm-runtime": "trtllm"}

_VLLM_1_1_1 = {
    "1.1.1": "0.19.0", "1.1.1-cuda13": "0.19.0", "1.1.1-efa-amd64": "0.19.0",
    "1.1.0": "0.19.0", "1.1.0-cuda13": "0.19.0", "1.1.0-efa-amd64": "0.19.0",
    "1.0.2": "0.16.0", "1.0.2-cuda13": "0.16.0", "1.0.2-efa-amd64": "0.16.0",
    "1.0.1": "0.16.0", "1.0.1-cuda13": "0.16.0", "1.0.1-efa-amd64": "0.16.0",
    "1.0.0": "0.16.0", "1.0.0-cuda13": "0.16.0", "1.0.0-efa-amd64": "0.16.0",
    "0.9.1": "0.14.1", "0.9.1-cuda13": "0.14.1", "0.9.0": "0.14.1", "0.9.0-cuda13": "0.14.1",
    "0.8.1": "0.12.0", "0.8.0": "0.12.0", "0.8.0-cuda13": "0.12.0",
    "0.7.0.post2": "0.11.2", "0.7.1": "0.11.0", "0.7.0.post1": "0.11.0", "0.7.0": "0.11.0",
    "0.6.1.post1": "0.11.0", "0.6.1": "0.11.0", "0.6.0": "0.11.0",
    # pre-releases
    "1.1.0-dev.1": "0.17.1", "1.1.0-dev.1-cuda13": "0.17.1", "1.1.0-dev.1-efa-amd64": "0.17.1",
    "1.2.0-deepseek-v4-cuda13-dev.2": "0.20.0",
}
_SGLANG_1_1_1 = {
    "1.1.1": "0.5.10.post1", "1.1.1-cuda13": "0.5.10.post1", "1.1.0": "0.5.10.post1", "1.1.0-cuda13": "0.5.10.post1",
    "1.0.2": "0.5.9", "1.0.2-cuda13": "0.5.9", "1.0.1": "0.5.9", "1.0.1-cuda13": "0.5.9",
    "1.0.0": "0.5.9", "1.0.0-cuda13": "0.5.9",
    "0.9.1": "0.5.8", "0.9.1-cuda13": "0.5.8", "0.9.0": "0.5.8", "0.9.0-cuda13": "0.5.8",
    "0.8.1": "0.5.6.post2", "0.8.1-cuda13": "0.5.6.post2", "0.8.0": "0.5.6.post2", "0.8.0-cuda13": "0.5.6.post2",
    "0.7.1": "0.5.4.post3", "0.7.0.post1": "0.5.4.post3", "0.7.0": "0.5.4.post3",
    "0.6.1.post1": "0.5.3.post2", "0.6.1": "0.5.3.post2", "0.6.0": "0.5.3.post2",
    # pre-releases
    "1.1.0-dev.1": "0.5.9", "1.1.0-dev.1-cuda13": "0.5.9", "1.1.0-dev.2": "0.5.9",
}
_TRTLLM_1_1_1 = {
    "1.1.1": "1.3.0rc11", "1.1.1-efa-amd64": "1.3.0rc11", "1.1.0": "1.3.0rc11", "1.1.0-efa-amd64": "1.3.0rc11",
    "1.0.2": "1.3.0rc5.post1", "1.0.2-efa-amd64": "1.3.0rc5.post1", "1.0.1": "1.3.0rc5.post1",
    "1.0.1-efa-amd64": "1.3.0rc5.post1", "1.0.0": "1.3.0rc5.post1", "1.0.0-efa-amd64": "1.3.0rc5.post1",
    "0.9.1": "1.3.0rc3", "0.9.0": "1.3.0rc1",
    # .post1 ships rc6.post2, not rc6.post1 as some revisions of docs/reference/support-matrix.md have it: the
    # inventory, its v0.8.1.post1 release note (TRT-LLM "v1.2.0rc6.post2") and the wheel's own pin agree
    # (https://pypi.org/project/ai-dynamo/0.8.1.post1/ METADATA: tensorrt-llm==1.2.0rc6.post2; .post2's pins the same,
    # but no page lists a .post2 image, so that tag stays unknown)
    "0.8.1.post3": "1.2.0rc6.post3", "0.8.1.post1": "1.2.0rc6.post2", "0.8.1": "1.2.0rc6.post1",
    "0.8.0": "1.2.0rc6.post1",
    "0.7.0.post2": "1.2.0rc2", "0.7.1": "1.2.0rc3", "0.7.0.post1": "1.2.0rc3", "0.7.0": "1.2.0rc2",
    "0.6.1-cuda13": "1.2.0rc1", "0.6.1.post1": "1.1.0rc5", "0.6.1": "1.1.0rc5", "0.6.0": "1.1.0rc5",
    # pre-releases
    "1.1.0-dev.1": "1.3.0rc5.post1", "1.1.0-dev.1-efa-amd64": "1.3.0rc5.post1", "1.1.0-dev.2": "1.3.0rc9",
    "1.1.0-dev.3": "1.3.0rc11",
}
# v1.2.0 by its backend versions; its tags as the compatibility page's CUDA table has them (12.9 untagged, -cuda13)
_COMPATIBILITY_1_2_0 = {
    "vllm": {"1.2.0": "0.20.1", "1.2.0-cuda13": "0.20.1"},
    "sglang": {"1.2.0": "0.5.11", "1.2.0-cuda13": "0.5.11"},
    "trtllm": {"1.2.0": "1.3.0rc14"},
}
_INVENTORY_1_2_1 = {
    "vllm": {"1.2.1": "0.20.1", "1.2.1-cuda13": "0.20.1", "1.2.1-efa-amd64": "0.20.1",
             "1.3.0-dev.1-cuda13": "0.22.0", "1.3.0-dev.1-cuda12": "0.22.0", "1.3.0-dev.1-efa": "0.22.0",
             "1.2.0-deepseek-v4-cuda13-dev.3": "0.20.1"},
    "sglang": {"1.2.1": "0.5.11", "1.2.1-cuda13": "0.5.11",
               "1.3.0-dev.1-cuda13": "0.5.12.post1", "1.3.0-dev.1-cuda12": "0.5.12.post1",
               "1.3.0-dev.1-efa": "0.5.12.post1"},
    "trtllm": {"1.2.1": "1.3.0rc14", "1.2.1-efa-amd64": "1.3.0rc14",
               "1.3.0-dev.1-cuda13": "1.3.0rc17", "1.3.0-dev.1-efa": "1.3.0rc17"},
}

# engine -> tag -> (the engine's release, where Dynamo states it)
RELEASES: Dict[str, Dict[str, Tuple[str, str]]] = {engine: {} for engine in ENGINES.values()}
for _engine, _table in (("vllm", _VLLM_1_1_1), ("sglang", _SGLANG_1_1_1), ("trtllm", _TRTLLM_1_1_1)):
    RELEASES[_engine].update((tag, (release, INVENTORY_1_1_1)) for tag, release in _table.items())
_ARTIFACTS_1_2_1 = {"sglang": {"1.2.1-efa-amd64": "0.5.11"}}
_RELEASES_1_3_0 = {
    "vllm": {"1.3.0": "0.23.0", "1.3.0-efa": "0.23.0"},
    "sglang": {"1.3.0": "0.5.14", "1.3.0-efa": "0.5.14"},
    "trtllm": {"1.3.0": "1.3.0rc19", "1.3.0-efa": "1.3.0rc19"},
}
# the page spells TensorRT-LLM's `1.3.0rc15post1`; PEP 440 reads it as 1.3.0rc15.post1
_EARLY_ACCESS_1_3_0 = {"vllm": {"1.3.0-nemotron-ultra-dev.1": "0.22.0"},
                       "trtllm": {"1.3.0-deepseek-v4-dev.1": "1.3.0rc15.post1"}}
_SUPPORT_MATRIX_1_5_0 = {
    "vllm": {"1.3.1": "0.23.0", "1.4.0": "0.26.0", "1.4.1": "0.26.0", "1.4.2": "0.26.0", "1.5.0": "0.28.0"},
    "sglang": {"1.3.1": "0.5.14", "1.4.0": "0.5.16", "1.4.1": "0.5.16", "1.4.2": "0.5.16", "1.5.0": "0.5.18"},
    "trtllm": {"1.3.1": "1.3.0rc19", "1.4.0": "1.3.0rc22", "1.4.1": "1.3.0rc22", "1.4.2": "1.3.0rc22",
               "1.5.0": "1.3.0rc25"},
}
_COMPATIBILITY_1_5_1 = {"vllm": {"1.5.1": "0.28.0"}, "sglang": {"1.5.1": "0.5.18"}, "trtllm": {"1.5.1": "1.3.0rc25"}}
_COMPATIBILITY_1_6_0 = {"vllm": {"1.6.0": "0.31.0"}, "sglang": {"1.6.0": "0.5.21"}, "trtllm": {"1.6.0": "1.3.0rc29"}}
_DEPRECATIONS_1_6_2 = {"vllm": {"1.6.2": "0.31.0", "1.7.0": "0.33.0"}, "sglang": {"1.6.2": "0.5.21", "1.7.0": "0.5.23"},
                       "trtllm": {"1.6.2": "1.3.0rc29", "1.7.0": "1.4.0rc2"}}
_DEPRECATIONS_1_7_1 = {"vllm": {"1.7.1": "0.33.0"}, "sglang": {"1.7.1": "0.5.23"}, "trtllm": {"1.7.1": "1.4.0rc2"}}
for _source, _tables in ((COMPATIBILITY_1_2_0, _COMPATIBILITY_1_2_0), (INVENTORY_1_2_1, _INVENTORY_1_2_1),
                         (ARTIFACTS_1_2_1, _ARTIFACTS_1_2_1), (RELEASES_1_3_0, _RELEASES_1_3_0),
                         (EARLY_ACCESS_1_3_0, _EARLY_ACCESS_1_3_0), (SUPPORT_MATRIX_1_5_0, _SUPPORT_MATRIX_1_5_0),
                         (COMPATIBILITY_1_5_1, _COMPATIBILITY_1_5_1), (COMPATIBILITY_1_6_0, _COMPATIBILITY_1_6_0),
                         (DEPRECATIONS_1_6_2, _DEPRECATIONS_1_6_2), (DEPRECATIONS_1_7_1, _DEPRECATIONS_1_7_1)):
    for _engine, _table in _tables.items():
        RELEASES[_engine].update((tag, (release, _source)) for tag, release in _table.items())

_REGISTRY = "nvcr.io/nvidia/ai-dynamo/"


def runtime_image(repo: str) -> Optional[str]:
    """The engine a Dynamo runtime image runs (`nvcr.io/nvidia/ai-dynamo/sglang-runtime`: sglang), under nvcr.io, a
    mirror that keeps its path, or enroot's `nvcr.io#nvidia/...` (srt-slurm's `model.container`); None for any other.
    `repo` lower-cased, as images.split_image gives it."""
    path = repo.replace("nvcr.io#", "nvcr.io/", 1)
    for name, engine in ENGINES.items():
        if path == _REGISTRY + name or path.endswith("/" + _REGISTRY + name):
            return engine
    return None


def dynamo_release(repo: str, tag: str) -> Optional[Tuple[str, Optional[str]]]:
    """(engine, release) for a Dynamo runtime image; release None for a tag Dynamo's pages do not list (a dev build,
    a custom tag, `latest`). None for any other image."""
    engine = runtime_image(repo)
    if engine is None:
        return None
    found = RELEASES[engine].get(tag.lower())
    return engine, found[0] if found else None


def source(repo: str, tag: str) -> Optional[str]:
    """Where Dynamo states the engine release of dynamo_release(repo, tag), or None."""
    engine = runtime_image(repo)
    found = RELEASES[engine].get(tag.lower()) if engine is not None else None
    return found[1] if found else None
