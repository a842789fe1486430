"""Pick the flag table for an engine and the front door it was started through."""
from __future__ import annotations

from typing import Optional

from . import flags_llamacpp, flags_lmdeploy, flags_sglang, flags_tgi, flags_trtllm, flags_vllm
from .flagspec import EngineSpec

ENGINES = ("vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy")
_ALIASES = {"llama.cpp": "llamacpp", "llama-server": "llamacpp", "text-generation-inference": "tgi",
            "tensorrt-llm": "trtllm", "tensorrt_llm": "trtllm"}


def spec_for(engine: str, launcher: Optional[str] = None, subcommand: Optional[str] = None) -> EngineSpec:
    """Flag table; an unknown engine gets an empty table (every flag unknown)."""
    engine = _ALIASES.get(engine, engine)
    dynamo = (launcher or "").startswith("dynamo.")
    if engine == "vllm":
        return flags_vllm.DYNAMO_SPEC if dynamo else flags_vllm.SPEC_
    if engine == "sglang":
        return flags_sglang.DYNAMO_SPEC if dynamo else flags_sglang.SPEC_
    if engine == "trtllm":
        if dynamo:
            return flags_trtllm.DYNAMO_SPEC
        return flags_trtllm.DISAGG_SPEC if subcommand == "disaggregated" else flags_trtllm.SPEC_
    if engine == "tgi":
        return flags_tgi.SPEC_
    if engine == "llamacpp":
        return flags_llamacpp.SPEC_
    if engine == "lmdeploy":
        return flags_lmdeploy.SPEC_
    return EngineSpec(str(engine), ())
