"""Which NVIDIA NIMs serve an LLM, by the model name of their image (`nvcr.io/nim/<org>/<model>`).

A NIMService, a KServe runtime, nim-llm values and a plain workload's container all run whatever NIM their
image names; only an LLM NIM is a deployment ctxlint checks (crds_nim.nim_role asks here for every one).
"""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

# NIMs that serve no LLM share the registry with the LLM NIMs, named by what they serve: embedding
# (`nv-embedqa-e5-v5`, `llama-3.2-nv-embedqa-1b-v2`, `llama-nemotron-embed-1b-v2`),
# reranking (`nv-rerankqa-mistral-4b-v3`, `llama-3.2-nv-rerankqa-1b-v2`), retrieval and document extraction
# (`nemoretriever-page-elements-v2`, `nemoretriever-parse`, `baidu/paddleocr`), speech (`parakeet-ctc-1.1b-asr`,
# `fastpitch-hifigan-tts`, `riva-*`),
# vision and world models (`nvclip`, `cosmos-predict1-*`; `cosmos-reason1-7b` is a VLM and answers chat):
# NVIDIA/k8s-nim-operator@51c41bc17ade56a7d32cd16b61d9fe87860fc346:config/samples/nim/pipelines/rag/rag-pipeline.yaml,
# NVIDIA/GenerativeAIExamples@401cb446f550c6dee8048a246e6c5dbc57f38dae:
#   community/ai-vws-sizing-advisor/deploy/compose/nims.yaml.
# A word of the model's name (split at `-`, `_`, `.`) says so; any other NIM is an LLM NIM.
NOT_LLM_WORDS = frozenset((
    "embed", "embedqa", "embedcode", "embedding", "embeddings", "rerank", "rerankqa", "reranker", "reranking",
    "ranking", "retriever", "nemoretriever", "clip", "nvclip", "ocr", "paddleocr", "ocdrnet", "yolox", "dino",
    "dinov2", "asr", "tts", "parakeet", "canary", "whisper", "riva", "fastpitch", "hifigan", "magpie",
    "audio2face", "maxine", "vista3d", "maisi", "sdxl", "diffusion"))
WORD = lazy_compile(r"[^-_.]+")


def is_llm_nim(model: Optional[str]) -> bool:
    """Whether a NIM named `<org>/<model>` (or a NIM whose image names none: None) serves an LLM: one whose
    name says it serves embeddings, ranking, retrieval, speech or vision is not one."""
    if not model:
        return True
    words = set(WORD.findall(model.rsplit("/", 1)[-1].lower()))
    if "cosmos" in words and not any(w.startswith("reason") for w in words):
        return False  # Cosmos predict/transfer world models; Cosmos Reason is a VLM
    return not words & NOT_LLM_WORDS
