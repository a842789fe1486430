"""The model an engine's command line serves: the first of the settings that name it, else (vLLM, TensorRT-LLM,
LMDeploy) the positional word, and the words a strict vLLM front door has no place for. Apart from parse.py's
parser, which re-exports `MODEL_KEYS` and `model_keys`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

from . import specs
from .flagspec import EngineSpec
from .result import Problem, Setting

if TYPE_CHECKING:
    from .parse import _Parser


MODEL_KEYS = ("model", "model_path", "model_id", "hf_repo", "model_name")  # the settings that name the model served, first wins
# LMDeploy's --model-name is the name the API answers to, not the model (lmdeploy==0.18.0:lmdeploy/serve/core/
# async_engine.py `self.model_name = model_name if model_name else model_path`): its model is the positional.
_NAME_ONLY = {"lmdeploy": "model_name"}


def model_keys(engine: Optional[str]) -> Tuple[str, ...]:
    """The settings that name the model `engine` serves, first wins."""
    skip = _NAME_ONLY.get(engine or "")
    return tuple(k for k in MODEL_KEYS if k != skip) if skip else MODEL_KEYS
# vLLM's front doors whose parser exits on a word it has no place for ("unrecognized arguments"): `vllm serve`
# (and the images whose entrypoint it is) takes one model argument, the OpenAI API server module none.
_VLLM_STRICT = ("vllm serve", "vllm.entrypoints.openai.api_server", specs.TGIS_ADAPTER)


def _model(spec: EngineSpec, p: _Parser, launcher: Optional[str]) -> Optional[Setting]:
    found = next((p.settings[key] for key in model_keys(spec.engine) if key in p.settings), None)
    takes_positional = spec.engine in ("vllm", "trtllm", "lmdeploy") and not (launcher or "").startswith(
        ("dynamo.", "vllm.entrypoints", "sglang", specs.TGIS_ADAPTER, specs.TRL_LAUNCHER))
    strict = spec.engine == "vllm" and (launcher in _VLLM_STRICT or (launcher or "").startswith("image:"))
    if spec.engine == "llamacpp" and p.positionals:
        from .llamacpp_words import refusals, stray_words  # rare: a llama-server word that is no option's value

        stray = stray_words(p.toks, p.positionals, spec, {u.token_index for u in p.unknown}, p.start)
        p.errors.extend(refusals(p.toks, stray, p.start))
        p.positionals = [k for k in p.positionals if k not in stray]  # refused, not merely unknown
    if found is not None and found.value is None and found.origin == "flag":
        p.model_word = found.token_index  # `--model ${ROOT}/models/NAME`: model_folder.py reads its folder
    if found is not None and not strict:
        return found  # another front door's words beside its model flag: not read
    flag, rest = found, p.positionals
    if takes_positional and found is None and p.unknown_words and (not rest or p.unknown_words[0] < rest[0]):
        p.model_word = p.unknown_words[0]  # the first word, not known: the model only its folder name may name
    if takes_positional and rest and found is None:
        k, rest = rest[0], rest[1:]
        t = p.toks[k]
        found = Setting(t.text, t.text, k, (t.start, t.end), "flag", None, item=t.item, note="positional")
        p.settings["model_path" if spec.engine == "lmdeploy" else "model"] = found
    if strict and rest:
        from .vllm_words import extra_words, surely_extra  # rare: only a line with words vLLM has no argument for

        unknown = {u.token_index for u in p.unknown}
        sure = [k for k in rest if surely_extra(p.toks, k, spec, unknown, p.start)]
        if sure:
            p.errors.extend(extra_words(p.toks, sure, flag, takes_positional, (launcher or "").startswith("image:")))
        rest = [k for k in rest if k not in sure]
    for k in rest:
        t = p.toks[k]
        p.unknown.append(Problem(f"unrecognized positional argument {t.text!r}", k, (t.start, t.end), t.item))
    return found
