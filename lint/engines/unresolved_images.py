"""Engine flags given to an image ctxlint cannot name: a reference left for a tool to fill in later.

    containers:
      - name: vllm
        image: ${VLLM_IMAGE}                      # envsubst fills it in before `kubectl apply`
        args: [--model, "${VLLM_MODEL}", --tensor-parallel-size, "${VLLM_GPU_COUNT}", --max-model-len, ...]

(the shape of felipemoz/vllm-on-azure@8e99e5add1cda234d9bfe65eb81420a093e2e3cb:k8s/vllm-deployment.yaml). The args go to
the image's entrypoint, and which program that is depends on the image, which is not in the file: the container is
not checked. Before, it was dropped without a word (0 deployments, no finding); now the flags the checks would read
are named, as for a known engine's image whose entrypoint ctxlint does not know (detect.unknown_entrypoint_flags).
Only an image whose own name is the unresolved part (`${IMAGE}`, `${REGISTRY}/${NAME}:${TAG}`) is meant: a literal
name (`${REGISTRY}/my-gateway:1`) says what runs, another program ctxlint does not check. And only words that are
engine settings ctxlint reads, with at least one that is no model flag (a context, KV pool, memory or parallel size
setting): `--model` alone is any tool's flag. The engine the flags belong to is named when one engine's table knows
more of them than any other's; the program is never guessed from them.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

from .images import split_image
from .tokens import Token

# The engines whose server takes its settings as flags (llama.cpp and TGI too: their images' entrypoints vary, but
# the flags still say what the container was written for)
_ENGINES = ("vllm", "sglang", "tgi", "llamacpp", "lmdeploy", "trtllm")
LABELS = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "llamacpp": "llama.cpp", "lmdeploy": "LMDeploy",
          "trtllm": "TensorRT-LLM"}
_SIZES = {"context", "kv_pool", "memory", "parallel"}  # the settings no non-engine tool is likely to share
# ...except these, which other programs take too, with the same meaning or another: `--device cuda` (an embedding
# or speech server, any PyTorch script), torchrun's rendezvous flags (`torchrun --nnodes 2 --node-rank 0
# --master-addr H --master-port P train.py`, a training job's), `--block-size` (a trainer's): beside an engine's own
# setting they are listed, alone they are no sign of an engine and weigh for none
_SHARED = {"--device", "--nnodes", "--node-rank", "--master-addr", "--master-port", "--block-size"}


def name_unresolved(image: Optional[str]) -> bool:
    """Whether the image's own name (the last part of its repository) holds a reference ctxlint did not resolve."""
    if not isinstance(image, str) or "$" not in image:
        return False
    repo, _ = split_image(image)
    return "$" in repo.rsplit("/", 1)[-1]


def engine_flags(tokens: Sequence[Union[Token, str]]) -> Tuple[Optional[str], List[str]]:
    """(the engine whose flag table knows the most of the words' checked flags, or None on a tie; those flags in
    the order written), or (None, []) when no word is a size setting of any engine."""
    from .specs import spec_for  # only such a container pays for the flag tables

    typed = list(dict.fromkeys(t.split("=", 1)[0] for t in
                               (tok.text if isinstance(tok, Token) else str(tok) for tok in tokens)
                               if t.startswith("--")))
    best: List[Tuple[int, str, List[str]]] = []
    for engine in _ENGINES:
        spec = spec_for(engine)
        # a flag as the engine spells it, never an abbreviation its parser would take (`--max-seq-len` is vLLM's
        # `--max-seq-len-to-capture` only by argparse's prefix match: a trainer's flag of its own)
        found = [(t, set(f.tags)) for t in typed if (f := _exact(spec, t)) is not None]
        checked = [t for t, tags in found if tags & (_SIZES | {"model"})]
        if any(tags & _SIZES for t, tags in found if t not in _SHARED):
            best.append((len([t for t in checked if t not in _SHARED]), engine, checked))
    if not best:
        return None, []
    best.sort(key=lambda b: -b[0])
    top = [b for b in best if b[0] == best[0][0]]
    flags = list(dict.fromkeys(t for b in top for t in b[2]))
    return (top[0][1] if len(top) == 1 else None), flags


def _exact(spec, typed: str):
    """The engine's flag `typed` spells in full (`_` for `-` where its parser rewrites them), else None."""
    found = spec.lookup.get(typed)
    if found is None and spec.underscore_equals_dash and typed.startswith("--"):
        found = spec.lookup.get("--" + typed[2:].replace("_", "-"))
    return found
