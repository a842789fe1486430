"""The env of a SageMaker Deep Learning Container whose entrypoint is a script that renames it for the engine.

Hugging Face's TGI DLC (`763104351884.dkr.ecr.<region>.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0-tgi2.3.1-
gpu-...`) is TGI's `sagemaker` Docker target: `ENTRYPOINT ["./entrypoint.sh"]`, a copy of sagemaker-entrypoint.sh
(huggingface/text-generation-inference@db931fcf42da018a3657580c64bf2720f167f9ab:Dockerfile, `FROM base AS
sagemaker`; Dockerfile_amd and Dockerfile_gaudi have the same stage). The script, unchanged since v0.9.0
(@62fc40103079bc27e97194ef69e9e34a180b0a85), does

    export MODEL_ID="${HF_MODEL_ID}"                      # always (it exits first when HF_MODEL_ID is empty)
    [[ -n "${HF_MODEL_REVISION}" ]] && export REVISION=...  # and SM_NUM_GPUS -> NUM_SHARD, HF_MODEL_QUANTIZE ->
    ...                                                   # QUANTIZE, HF_MODEL_TRUST_REMOTE_CODE -> TRUST_REMOTE_CODE
    text-generation-launcher --port 8080

so HF_MODEL_ID wins over a MODEL_ID of the env, a non-empty SM_NUM_GPUS (...) over NUM_SHARD (...), any other
variable (MAX_INPUT_TOKENS, ...) reaches the launcher as written, and the container's arguments reach nothing: the
launcher is run without "$@". `export MODEL_ID` came in v0.7.0 (@1ba78207, #343; AWS's 0.5 DLC inserted the same line:
aws/deep-learning-containers@8e148893dd6e6642a97f41e77e07d0e7f7487c10:huggingface/pytorch/tgi/docker/0.5/py3/cu118/
Dockerfile.gpu), TRUST_REMOTE_CODE in v0.9.0. The Inferentia DLC (`...-neuronx-...` tags) runs optimum-neuron's own
script, and TGI's published images (ghcr.io) its final stage: neither is read this way.
"""
from __future__ import annotations

from typing import Dict, Optional

from ctxlint.engines.images import engine_from_image, split_image
from ctxlint.findings import Diagnostic
from ctxlint.versions import parse_version

# (the DLC's variable, the launcher's, whether the script exports it even when empty, the first TGI release)
_TGI_RENAMES = (("HF_MODEL_ID", "MODEL_ID", True, None), ("HF_MODEL_REVISION", "REVISION", False, None),
                ("SM_NUM_GPUS", "NUM_SHARD", False, None), ("HF_MODEL_QUANTIZE", "QUANTIZE", False, None),
                ("HF_MODEL_TRUST_REMOTE_CODE", "TRUST_REMOTE_CODE", False, "0.9.0"))
UNRESOLVED = "unresolved-value"


def runs_tgi_sagemaker_entrypoint(image: str) -> bool:
    repo, tag = split_image(image)
    return repo.rsplit("/", 1)[-1] == "huggingface-pytorch-tgi-inference" and "neuron" not in tag.lower()


def tgi_entrypoint(reader, image: str, out) -> bool:
    """Rename `reader`'s env (workload._Reader: `env`, `env_nodes`) as the DLC's script does, and remember the
    renames (`reader.sm_renamed`: launcher variable -> the DLC's, for the settings' spellings). True when the image
    runs that script; its arguments are then said to be dropped, at the first of them."""
    if not runs_tgi_sagemaker_entrypoint(image):
        return False
    release = parse_version(engine_from_image(image)[1])
    env, nodes = reader.env, reader.env_nodes
    renamed: Dict[str, str] = {}
    for dlc, launcher, always, since in _TGI_RENAMES:
        if dlc not in env or (since is not None and release is not None and release < parse_version(since)):
            continue
        value: Optional[str] = env[dlc]
        if value == "" and not always:  # `[[ -n ... ]]`: an empty one leaves the launcher's own variable
            continue
        env[launcher], renamed[launcher] = value, dlc
        if dlc in nodes:
            nodes[launcher] = nodes[dlc]
    reader.sm_renamed = renamed
    c = reader.c
    words = [n for n in (c.command, c.args, c.script) if n is not None and n.value not in (None, "", [])]
    if words:  # at the first word: a list's first item, or the string
        first = words[0].value[0] if isinstance(words[0].value, list) else words[0]
        out.diagnostics.append(Diagnostic(UNRESOLVED, (
            "the image's entrypoint (TGI's sagemaker-entrypoint.sh) runs `text-generation-launcher --port 8080` and "
            "passes it no arguments, so these are not read: set the launcher's settings by env (MAX_INPUT_TOKENS, "
            "MAX_TOTAL_TOKENS, ...; HF_MODEL_ID, SM_NUM_GPUS), or give a `command` to run the launcher yourself"),
            first.source(reader.file), None))
    return True


def renamed_settings(inv, renamed: Dict[str, str]):
    """The invocation's env settings and messages under the variables the DLC's env names (`SM_NUM_GPUS=4`), so
    they are quoted and located as written."""
    from ctxlint.records import replace

    settings = {k: replace(s, flag_spelling=renamed[s.flag_spelling])
                if s.origin == "env" and s.flag_spelling in renamed else s for k, s in inv.settings.items()}

    def said(problems):
        return tuple(replace(p, message=f"env {renamed[name]}{p.message[4 + len(name):]}")
                     if (name := _env_name(p.message)) in renamed else p for p in problems)
    return replace(inv, settings=settings, errors=said(inv.errors), unresolved=said(inv.unresolved))


def _env_name(message: str) -> str:
    if not message.startswith("env "):
        return ""
    word = message[4:].split(" ", 1)[0]
    return word.rstrip(":")
