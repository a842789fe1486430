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
    "audio2face", "maxine", "vista3d", "maisi", "sdxl", "diffusion", "parse"))
# ...and an LLM NIM's name says what it is: a model family or a chat/instruct tune
# (`meta/llama3-8b-instruct`, `nvidia/llama-3.1-nemotron-70b-instruct`, `mistralai/mixtral-8x7b-instruct-v01`,
# `qwen/qwen2.5-coder-32b-instruct`, `openai/gpt-oss-120b`, `deepseek-ai/deepseek-r1`). The registry also holds
# image-generation and biology NIMs (`black-forest-labs/flux.1-dev`, `mit/diffdock`, `deepmind/alphafold2`,
# `arc/evo2-40b`, `baai/bge-m3`: review, sweep 40 follow-up), so a name with neither sign, an LLM variable in the
# container's environment or a catalog entry is not taken for an LLM: a phantom deployment is worse than a note.
LLM_STEMS = ("llama", "mistral", "mixtral", "ministral", "magistral", "devstral", "codestral", "qwen", "qwq",
             "gemma", "codegemma", "nemotron", "deepseek", "phi", "gpt", "instruct", "chat", "coder", "codellama",
             "starcoder", "granite", "kimi", "glm", "chatglm", "falcon", "jamba", "dbrx", "aya", "sarvam",
             "minimax", "llm", "seallm", "olmo", "baichuan", "internlm", "exaone", "hermes", "zephyr", "solar",
             "swallow", "breeze", "typhoon", "palmyra", "arctic", "reason", "r1", "yi", "command")
WORD = lazy_compile(r"[^-_.]+")


def is_llm_nim(model: Optional[str], llm_env: bool = False, llm_object: bool = False) -> bool:
    """Whether a NIM named `<org>/<model>` (or a NIM whose image names none: None, the model-free LLM NIM)
    serves an LLM: not one whose name says it serves embeddings, ranking, retrieval, speech or vision; one whose
    name says it is an LLM, whose container sets an LLM NIM variable (`llm_env`), or that the catalog knows; or
    any other when the object that runs it is made for LLM NIMs (`llm_object`: a NIMService, KServe's
    `nvidia-nim-*` model format, the nim-llm chart's values)."""
    if not model:
        return True
    words = set(WORD.findall(model.rsplit("/", 1)[-1].lower()))
    if "cosmos" in words and not any(w.startswith("reason") for w in words):
        return False  # Cosmos predict/transfer world models; Cosmos Reason is a VLM
    if words & NOT_LLM_WORDS:
        return False
    if llm_object or llm_env or any(w.startswith(LLM_STEMS) for w in words):
        return True
    from ctxlint.physics.models import lookup_model  # only a NIM of a name no stem covers pays for it

    return lookup_model(model) is not None
