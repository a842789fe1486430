"""NVIDIA NGC containers tagged by NVIDIA's monthly release (`nvcr.io/nvidia/vllm:25.10-py3`), and the engine
release NVIDIA's own notes say each month's container holds.

Their tags number NVIDIA's months, not the engine's releases, so the tag alone names no release (images.py
`_own_numbering`); NVIDIA publishes what each month holds. Only rows read from NVIDIA's pages are here: a month
whose page was not read is unknown, never inferred from its neighbours (a month between two known releases may
hold either, or a release candidate). Loaded only when an image under `nvcr.io/nvidia/` is met (images.py).
"""
from __future__ import annotations

import re
from typing import Dict, Optional, Tuple

# NVIDIA's vLLM release notes, one page per month, each stating "Contents of the vLLM container ... vLLM: X".
# Read 2026-12 through the stored docs corpus; the months 25.08, 25.09, 25.11, 25.12, 26.02, 26.04 and 26.06-26.09
# were searched for and not found there (tests/engines/test_ngc.py lists them): unknown.
VLLM_NOTES = "https://docs.nvidia.com/deeplearning/frameworks/vllm-release-notes/rel-{}.html"
VLLM_CONTAINER: Dict[str, str] = {
    "25.10": "0.10.2",  # rel-25-10: "vLLM: 0.10.2"
    "26.01": "0.11.1",  # rel-26-01: "vLLM: 0.11.1"
    "26.03": "0.17.1",  # rel-26-03: "vLLM: 0.17.1"
    "26.05": "0.20.1",  # rel-26-05: "vLLM: 0.20.1"
    "26.10": "0.31.0",  # rel-26-10: "vLLM: 0.31.0"
}

# Triton's release compatibility matrix, one table per container name: the `vllm-python-py3` table's "vLLM
# version" and the `trtllm-python-py3` table's "TensorRT-LLM version", as written there (NVIDIA's builds carry a
# local label, `0.10.2+9dd9ca32.nv25.10.cu130`: release() keeps the public release, 0.10.2). Published as
# https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/introduction/compatibility.html
TRITON_MATRIX = ("triton-inference-server/server@0f963c9a8c6913aa4cd9b57ee04f9c2b76ee8d2a:"
                 "docs/introduction/compatibility.md")
TRITON_VLLM: Dict[str, str] = {
    "26.08": "0.27.1+b1082979.nv26.8.62699174", "26.07": "0.24.0+092c4842.nv26.7.57386851",
    "26.06": "0.22.1+7b9cb5b7.nv26.6.55098374", "26.05": "0.19.0+6bc3197f.nv26.04.48761268",
    "26.04": "0.19.0+6bc3197f.nv26.04.48761268", "26.03": "0.17.1+fb2e3ab6.nv26.3.46332470.cu132",
    "26.02": "0.15.1+nv26.2", "26.01": "0.13.0+faa43dbf.nv26.1.cu131", "25.12": "0.11.1+9114fd76.nv25.12.cu131",
    "25.11": "0.11.0+582e4e37.nv25.11.cu130", "25.10": "0.10.2+9dd9ca32.nv25.10.cu130",
    "25.09": "0.10.1.1+381074ae.nv25.9.cu130", "25.08": "0.9.2+4ef1e343.nv25.8.post1.cu130",
    "25.07": "0.9.0rc1+1958ee56.nv25.6.cu129", "25.06": "0.9.0rc1+1958ee56.nv25.6.cu129",
    "25.05": "0.8.4+dc1a3e10.nv25.5.cu129", "25.04": "0.8.1+5f4af9e0.nv25.4.cu129",
    "25.03": "0.7.3+04de634a.nv25.3.cu128", "25.02": "0.7.0+5e800e3d.nv25.2.cu128", "25.01": "0.6.3.post1",
    "24.12": "0.5.5", "24.11": "0.5.5", "24.10": "0.5.5", "24.09": "0.5.3.post1", "24.08": "0.5.0 post1",
    "24.07": "0.5.0 post1", "24.06": "0.4.3", "24.05": "0.4.0 post1", "24.04": "0.4.0 post1",
}
TRITON_TRTLLM: Dict[str, str] = {
    "26.07": "1.2.1", "26.06": "1.2.1", "26.05": "1.2.1", "26.04": "1.2.1", "26.03": "1.2.0", "26.02": "1.1.0",
    "26.01": "1.1.0", "25.12": "1.1.0", "25.11": "1.0.3.2510", "25.10": "1.0.0", "25.09": "1.0.0",
    "25.08": "0.21.0", "25.07": "0.20.0", "25.06": "0.20.0", "25.05": "0.19.0", "25.04": "0.18.2",
    "25.03": "0.18.0", "25.02": "0.17.0.post1", "25.01": "0.17.0", "24.12": "0.16.0", "24.11": "0.15.0",
    "24.10": "0.14.0", "24.09": "0.13.0", "24.08": "0.12.0", "24.07": "0.11.0", "24.06": "0.10.0",
    "24.05": "0.9.0", "24.04": "0.9.0",
}

# NVIDIA's monthly containers: repository -> (engine, table). NVIDIA also ships an SGLang container
# (https://docs.nvidia.com/deeplearning/frameworks/sglang-release-notes/running.html: `nvcr.io/nvidia/...:xx.yy-py3`),
# but no month's contents page was found: its tags are known to be NVIDIA's months, and name no release.
_REPOS: Dict[str, Tuple[str, Dict[str, str]]] = {
    "nvcr.io/nvidia/vllm": ("vllm", VLLM_CONTAINER),
    "nvcr.io/nvidia/sglang": ("sglang", {}),
}
# `25.10-py3`, and the other images of the month: NVIDIA's notes describe a release "made up of two container
# images" (rel-25-10), so a platform suffix after `-py3` (`-igpu`) is the same month's contents.
_MONTH_TAG = re.compile(r"(\d{2}\.\d{2})-py3(?:-[a-z0-9]+)?")
# Triton's tags name the container of the matrix's table after the month: `25.10-vllm-python-py3`.
_TRITON_TAG = re.compile(r"(\d{2}\.\d{2})-(vllm|trtllm)-python-py3")
_TRITON = {"vllm": TRITON_VLLM, "trtllm": TRITON_TRTLLM}


def ngc_release(repo: str, tag: str) -> Optional[Tuple[str, Optional[str]]]:
    """(engine, release) for an image of NVIDIA's monthly containers, under nvcr.io or a mirror that keeps its path
    (`myregistry.io/nvcr.io/nvidia/vllm`); release None for a month not read or a tag of no month (`latest`).
    None for any other image (the caller reads it as before). `repo` lower-cased, `tag` as split_image gives."""
    for name, (engine, table) in _REPOS.items():
        if repo == name or repo.endswith("/" + name):
            m = _MONTH_TAG.fullmatch(tag.lower())
            return engine, release(table.get(m.group(1))) if m else None
    if repo == "nvcr.io/nvidia/tritonserver" or repo.endswith("/nvcr.io/nvidia/tritonserver"):
        m = _TRITON_TAG.fullmatch(tag.lower())
        if m:
            return m.group(2), release(_TRITON[m.group(2)].get(m.group(1)))
    return None


def source(repo: str, tag: str) -> Optional[str]:
    """Where the release of ngc_release(repo, tag) is stated: the month's vLLM release notes, or Triton's matrix."""
    found = ngc_release(repo, tag)
    if found is None or found[1] is None:
        return None
    m = _MONTH_TAG.fullmatch(tag.lower())
    return VLLM_NOTES.format(m.group(1).replace(".", "-")) if m else TRITON_MATRIX


def release(written: Optional[str]) -> Optional[str]:
    """The public release of a version as NVIDIA writes it: the local label dropped (`0.10.2+9dd9ca32.nv25.10`
    is NVIDIA's build of 0.10.2), `0.5.0 post1` as PEP 440 spells it."""
    if not written:
        return None
    return written.split("+", 1)[0].strip().replace(" post", ".post")
