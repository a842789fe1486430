"""A Compose service on an LLM NIM image is a deployment, as a pod's container on one is.

Modelled on NVIDIA-AI-Blueprints/rag@329875a deploy/compose/nims.yaml (`nim-llm` on
`nvcr.io/nim/nvidia/nemotron-3-super-120b-a12b:1.8.0`, GPUs by `device_ids`, beside embedding and reranking NIMs and
page-elements NIMs whose image Compose interpolates) and NVIDIA/GenerativeAIExamples@401cb44
RAG/examples/local_deploy/docker-compose-nim-ms.yaml. Before, such a service was no deployment: a NIM starts its own
server, so no command names an engine.
"""
from __future__ import annotations

from tests.adapters.kit import adapt, at
from helpers import run

NIMS = """\
services:
  nim-llm:
    image: nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4
    environment:
      NGC_API_KEY: ${NGC_API_KEY}
      NIM_MAX_MODEL_LEN: "32768"
      NIM_TENSOR_PARALLEL_SIZE: "4"
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              device_ids: ['${LLM_MS_GPU_ID:-1}', '${LLM_MS_GPU_ID2:-2}']
              capabilities: [gpu]
  nemotron-embedding-ms:
    image: nvcr.io/nim/nvidia/llama-nemotron-embed-1b-v2:1.13.0
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
  page-elements:
    image: ${YOLOX_IMAGE:-nvcr.io/nim/nvidia/nemotron-page-elements-v3}:${YOLOX_TAG:-1.8.0}
  shell:
    image: nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4
    command: ["sleep", "infinity"]
"""


def test_an_llm_nim_service_is_a_deployment_with_its_reserved_gpus():
    res = adapt(NIMS, "nims.yaml")
    [dep] = res.deployments  # the embedding NIM serves no LLM; an interpolated image and a command start none
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.engine.version.value) == \
        ("compose", "nim-llm", "nim", "1.8.4")
    model = dep.model.id
    assert (model.value, model.source.line, at(NIMS, model.source)) == \
        ("meta/llama-3.1-8b-instruct", 3, "meta/llama-3.1-8b-instruct")
    [role] = dep.roles
    ctx, gpus, tp = role.context_length, role.accelerators.count, role.parallelism.tp
    assert (ctx.value, ctx.source.line, at(NIMS, ctx.source)) == (32768, 6, '"32768"')
    # two device_ids; checked against the stated TP (CTX204), as in a pod
    assert (gpus.value, gpus.source.line, gpus.raw, tp) == (2, 13, "2 device_ids", 4)


def test_its_tensor_parallel_size_is_checked_against_its_gpus(tmp_path):
    (tmp_path / "nims.yaml").write_text(NIMS)
    out = run(["check", "--isolated", "-q", str(tmp_path / "nims.yaml")]).out
    assert "nims.yaml:7:33: CTX204 [error] 4 > 2:" in out


def test_no_nim_service_means_no_deployment():
    text = NIMS[:NIMS.index("  nim-llm:")] + NIMS[NIMS.index("  nemotron-embedding-ms:"):]
    assert adapt(text, "nims.yaml").deployments == []
