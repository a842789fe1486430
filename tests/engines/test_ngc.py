"""NVIDIA NGC monthly containers (lint/engines/ngc.py): the engine release NVIDIA's own notes state per month."""
from __future__ import annotations

import pytest

from ctxlint.engines import engine_from_image
from ctxlint.engines.images import split_image
from ctxlint.engines.ngc import (TRITON_MATRIX, TRITON_TRTLLM, TRITON_VLLM, VLLM_CONTAINER, ngc_release, release,
                                 source)
from helpers import run

# Every month of NVIDIA's vLLM container searched for, from 25.08 (the month the notes' "Running vLLM" page gives as
# its example tag) to 26.10, the newest page found: the release its page states, None where no page was read.
VLLM_MONTHS = {
    "25.08": None, "25.09": None, "25.10": "0.10.2", "25.11": None, "25.12": None, "26.01": "0.11.1",
    "26.02": None, "26.03": "0.17.1", "26.04": None, "26.05": "0.20.1", "26.06": None, "26.07": None,
    "26.08": None, "26.09": None, "26.10": "0.31.0",
}
# Triton's compatibility matrix (TRITON_MATRIX): every row of both tables, public release as ctxlint reads it.
TRITON_VLLM_MONTHS = {
    "26.08": "0.27.1", "26.07": "0.24.0", "26.06": "0.22.1", "26.05": "0.19.0", "26.04": "0.19.0",
    "26.03": "0.17.1", "26.02": "0.15.1", "26.01": "0.13.0", "25.12": "0.11.1", "25.11": "0.11.0",
    "25.10": "0.10.2", "25.09": "0.10.1.1", "25.08": "0.9.2", "25.07": "0.9.0rc1", "25.06": "0.9.0rc1",
    "25.05": "0.8.4", "25.04": "0.8.1", "25.03": "0.7.3", "25.02": "0.7.0", "25.01": "0.6.3.post1",
    "24.12": "0.5.5", "24.11": "0.5.5", "24.10": "0.5.5", "24.09": "0.5.3.post1", "24.08": "0.5.0.post1",
    "24.07": "0.5.0.post1", "24.06": "0.4.3", "24.05": "0.4.0.post1", "24.04": "0.4.0.post1",
}
TRITON_TRTLLM_MONTHS = {
    "26.07": "1.2.1", "26.06": "1.2.1", "26.05": "1.2.1", "26.04": "1.2.1", "26.03": "1.2.0", "26.02": "1.1.0",
    "26.01": "1.1.0", "25.12": "1.1.0", "25.11": "1.0.3.2510", "25.10": "1.0.0", "25.09": "1.0.0",
    "25.08": "0.21.0", "25.07": "0.20.0", "25.06": "0.20.0", "25.05": "0.19.0", "25.04": "0.18.2",
    "25.03": "0.18.0", "25.02": "0.17.0.post1", "25.01": "0.17.0", "24.12": "0.16.0", "24.11": "0.15.0",
    "24.10": "0.14.0", "24.09": "0.13.0", "24.08": "0.12.0", "24.07": "0.11.0", "24.06": "0.10.0",
    "24.05": "0.9.0", "24.04": "0.9.0",
}


def test_the_tables_hold_exactly_the_months_read():
    # a row added without its month here (or a month inferred from a neighbour) fails
    assert set(VLLM_CONTAINER) == {m for m, r in VLLM_MONTHS.items() if r is not None}
    assert set(TRITON_VLLM) == set(TRITON_VLLM_MONTHS) and set(TRITON_TRTLLM) == set(TRITON_TRTLLM_MONTHS)


@pytest.mark.parametrize("month,expected", sorted(VLLM_MONTHS.items()))
def test_vllm_container_month(month, expected):
    image = f"nvcr.io/nvidia/vllm:{month}-py3"
    assert engine_from_image(image) == ("vllm", expected)
    url = f"https://docs.nvidia.com/deeplearning/frameworks/vllm-release-notes/rel-{month.replace('.', '-')}.html"
    assert source(*split_image(image)) == (url if expected else None)


@pytest.mark.parametrize("month,expected", sorted(TRITON_VLLM_MONTHS.items()))
def test_triton_vllm_backend_month(month, expected):
    image = f"nvcr.io/nvidia/tritonserver:{month}-vllm-python-py3"
    assert engine_from_image(image) == ("vllm", expected)
    assert source(*split_image(image)) == TRITON_MATRIX


@pytest.mark.parametrize("month,expected", sorted(TRITON_TRTLLM_MONTHS.items()))
def test_triton_trtllm_month(month, expected):
    assert engine_from_image(f"nvcr.io/nvidia/tritonserver:{month}-trtllm-python-py3") == ("trtllm", expected)


@pytest.mark.parametrize("image,expected", [
    # months no table row holds stay unknown
    ("nvcr.io/nvidia/tritonserver:26.08-trtllm-python-py3", ("trtllm", None)),
    ("nvcr.io/nvidia/tritonserver:24.03-vllm-python-py3", ("vllm", None)),  # before the matrix's first row
    ("nvcr.io/nvidia/tritonserver:25.10-py3", (None, None)),  # Triton without an LLM backend
    ("nvcr.io/nvidia/vllm:latest", ("vllm", None)), ("nvcr.io/nvidia/vllm", ("vllm", None)),
    ("nvcr.io/nvidia/vllm:25.10", ("vllm", None)),  # NVIDIA's tags end in -py3
    # NVIDIA's SGLang container exists, but no month's contents were read
    ("nvcr.io/nvidia/sglang:25.11-py3", ("sglang", None)),
    # mirrors that keep the path, a platform suffix, digests, compose defaults
    ("myregistry.io/nvcr.io/nvidia/vllm:25.10-py3", ("vllm", "0.10.2")),
    ("harbor.corp.example/mirror/nvcr.io/nvidia/vllm:26.05-py3", ("vllm", "0.20.1")),
    ("nvcr.io/nvidia/vllm:26.01-py3-igpu", ("vllm", "0.11.1")),
    ("nvcr.io/nvidia/vllm:26.03-py3@sha256:0123abcd", ("vllm", "0.17.1")),
    ("nvcr.io/nvidia/vllm@sha256:0123abcd", ("vllm", None)),
    ("${IMAGE:-nvcr.io/nvidia/vllm:26.10-py3}", ("vllm", "0.31.0")),
    ("nvcr.io/nvidia/vllm:${TAG}", ("vllm", None)),
    ("NVCR.IO/NVIDIA/VLLM:25.10-PY3", ("vllm", "0.10.2")),
    ("mirror.example/nvcr.io/nvidia/tritonserver:25.10-trtllm-python-py3", ("trtllm", "1.0.0")),
    # not NVIDIA's path: a registry's own `nvidia/vllm`, or a path that only ends like it
    ("someone/nvidia/vllm:25.10-py3", ("vllm", None)),
    ("nvcr.io/nvidia/vllm-custom:25.10-py3", ("vllm", None)),
])
def test_mirrors_suffixes_and_unknowns(image, expected):
    assert engine_from_image(image) == expected


def test_only_nvidias_paths_are_read():
    assert ngc_release("someone/nvidia/vllm", "25.10-py3") is None
    assert ngc_release("nvcr.io/nvidia/tritonserver", "25.10-py3") is None  # Triton's own release: no engine


def test_release_reads_nvidia_spellings():
    assert release("0.10.2+9dd9ca32.nv25.10.cu130") == "0.10.2"
    assert release("0.5.0 post1") == "0.5.0.post1"
    assert release("0.9.0rc1+1958ee56.nv25.6.cu129") == "0.9.0rc1"
    assert release(None) is None and release("") is None


@pytest.mark.parametrize("image", ["", "nvcr.io/nvidia/", ":", "nvcr.io/nvidia/vllm:", "nvcr.io/nvidia/vllm::x",
                                   "nvcr.io/nvidia/tritonserver:-vllm-python-py3", "nvcr.io/nvidia/vllm:99.99-py3",
                                   "nvcr.io/nvidia/vllm:25.10-py3-", "nvcr.io/nvidia/\x00vllm:25.10-py3"])
def test_bad_references_never_crash(image):
    engine, version = engine_from_image(image)
    assert version is None


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-L4
      containers:
        - name: vllm
          image: {image}
          command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
SCRIPT = """\
#!/bin/sh
docker run --gpus all -p 8000:8000 nvcr.io/nvidia/vllm:26.01-py3 \\
  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768
docker run --gpus all nvcr.io/nvidia/tritonserver:25.10-vllm-python-py3 \\
  python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --max-model-len 8192
"""


def test_end_to_end_the_release_narrows_the_estimate_as_the_upstream_tag_does(tmp_path, monkeypatch):
    (tmp_path / "ngc.yaml").write_text(DEPLOYMENT.format(image="nvcr.io/nvidia/vllm:25.10-py3"), encoding="utf-8")
    (tmp_path / "upstream.yaml").write_text(DEPLOYMENT.format(image="vllm/vllm-openai:v0.10.2"), encoding="utf-8")
    (tmp_path / "unread.yaml").write_text(DEPLOYMENT.format(image="nvcr.io/nvidia/vllm:25.09-py3"), encoding="utf-8")
    (tmp_path / "launch.sh").write_text(SCRIPT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run(["audit", "--format", "csv", "ngc.yaml", "upstream.yaml", "unread.yaml", "launch.sh"])
    rows = sorted(line.split(",")[2:7] + line.split(",")[9:10] for line in result.out.splitlines()[1:])
    assert rows == [
        ["launch.sh", "3", "vllm", "0.11.1", "unified", ""],  # no device: no pool
        ["launch.sh", "5", "vllm", "0.10.2", "unified", ""],
        ["ngc.yaml", "1", "vllm", "0.10.2", "unified", "32944"],  # the pool vllm/vllm-openai:v0.10.2 gives
        ["unread.yaml", "1", "vllm", "", "unified", "25440"],  # unknown: the least any release leaves
        ["upstream.yaml", "1", "vllm", "0.10.2", "unified", "32944"],
    ]
    table = run(["audit", "ngc.yaml", "launch.sh"]).out.splitlines()[:5]
    assert [line[:len(want)] for line, want in zip(table, AUDIT_TABLE.splitlines())] == AUDIT_TABLE.splitlines()


# the audit's first columns: the engine column names the release NVIDIA states for each tag
AUDIT_TABLE = """\
model                             deployment                         file         engine       mode       window
--------------------------------  ---------------------------------  -----------  -----------  -------  --------
meta-llama/Llama-3.1-8B-Instruct  llama                              ngc.yaml:1   vllm 0.10.2  unified         -
Qwen/Qwen2.5-7B-Instruct          launch (Qwen/Qwen2.5-7B-Instruct)  launch.sh:3  vllm 0.11.1  unified         -
Qwen/Qwen3-8B                     launch (Qwen/Qwen3-8B)             launch.sh:5  vllm 0.10.2  unified         -"""


def test_triton_launcher_takes_the_tensorrt_llm_release_of_its_month():
    # Triton's own TensorRT-LLM launcher (adapters/triton_trtllm.py): the release is Triton's matrix's, at the tag
    from tests.adapters.kit import adapt, at
    from tests.adapters.test_triton_trtllm import TRITON

    [dep] = adapt(TRITON).deployments
    version = dep.engine.version
    assert (version.value, at(TRITON, version.source)) == ("0.12.0", "24.08-trtllm-python-py3")
