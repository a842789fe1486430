"""Pick the flag table for an engine and the front door it was started through.

Each engine's table is imported the first time a command of that engine is read: a run over
vLLM deployments never builds SGLang's or TensorRT-LLM's ~200 flag specs (issue 15)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

from .flagspec import EngineSpec

ENGINES = ("vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy", "tgis")  # tgis: IBM's fork of TGI, flags_tgis
_ALIASES = {"llama.cpp": "llamacpp", "llama-server": "llamacpp", "text-generation-inference": "tgi",
            "tensorrt-llm": "trtllm", "tensorrt_llm": "trtllm"}


def spec_for(engine: str, launcher: Optional[str] = None, subcommand: Optional[str] = None) -> EngineSpec:
    """Flag table; an unknown engine gets an empty table (every flag unknown)."""
    engine = _ALIASES.get(engine, engine)
    door = "dynamo" if (launcher or "").startswith("dynamo.") else "router" if launcher == ROUTER_LAUNCHER else \
        "tgis" if launcher == TGIS_ADAPTER else "trl" if launcher == TRL_LAUNCHER else ""
    key = (engine, door, subcommand == "disaggregated")
    found = _SPECS.get(key)
    if found is None:
        found = _adapter() if door == "tgis" else _trl() if door == "trl" else \
            _spec(engine, door == "dynamo", key[2], door == "router")
        if len(_SPECS) < 256:  # the known tables, and a few made-up engine names
            _SPECS[key] = found
    return found


# `python -m sglang_router.launch_server`: SGLang's flags on a parser of its own (flags_sglang.ROUTER_SPEC)
ROUTER_LAUNCHER = "sglang_router.launch_server"

# `python -m vllm_tgis_adapter`: vLLM's flags, TGIS's spellings and an env fallback for each (flags_tgis_adapter)
TGIS_ADAPTER = "vllm_tgis_adapter"

# `trl vllm-serve` / `python -m trl.scripts.vllm_serve`: TRL's own flags, vLLM's LLM class behind them (flags_trl)
TRL_LAUNCHER = "trl vllm-serve"

# (engine, front door: "dynamo", "router", "tgis", "trl" or "", disaggregated) -> its table: `from . import` in a
# function runs
# importlib's Python-level _handle_fromlist at every call, and a command is looked up once or twice a role.
_SPECS: Dict[Tuple[str, str, bool], EngineSpec] = {}


def _spec(engine: str, dynamo: bool, disaggregated: bool, router: bool = False) -> EngineSpec:
    if engine == "vllm":
        from . import flags_vllm
        return flags_vllm.DYNAMO_SPEC if dynamo else flags_vllm.SPEC_
    if engine == "sglang":
        from . import flags_sglang
        return flags_sglang.DYNAMO_SPEC if dynamo else flags_sglang.ROUTER_SPEC if router else flags_sglang.SPEC_
    if engine == "trtllm":
        from . import flags_trtllm
        if dynamo:
            return flags_trtllm.DYNAMO_SPEC
        return flags_trtllm.DISAGG_SPEC if disaggregated else flags_trtllm.SPEC_
    if engine == "tgi":
        from . import flags_tgi
        return flags_tgi.SPEC_
    if engine == "llamacpp":
        from . import flags_llamacpp
        return flags_llamacpp.SPEC_
    if engine == "lmdeploy":
        from . import flags_lmdeploy
        return flags_lmdeploy.SPEC_
    if engine == "tgis":
        from . import flags_tgis
        return flags_tgis.SPEC_
    return EngineSpec(str(engine), ())


def _trl() -> EngineSpec:
    from . import flags_trl  # only TRL's launches pay for its table
    return flags_trl.SPEC_


def _adapter() -> EngineSpec:
    from . import flags_tgis_adapter  # only the adapter's commands pay for its table
    return flags_tgis_adapter.SPEC_


def flag_gone(engine: str, name: str, release: Optional[str]) -> bool:
    """Has this release of the engine dropped the flag (FlagSpec.removed_in)? False when it has not, or when
    the release is not known: a setting some releases read is credited unless the release is known to refuse it."""
    f = spec_for(engine).by_name(name)
    return f is not None and f.gone_at(release) is True


# vLLM's shortcuts for keys of --speculative-config, from 0.22.0 (flags_vllm.SPEC_SHORTCUTS)
_SPEC_KEYS = (("spec_method", "method"), ("spec_model", "model"), ("spec_tokens", "num_speculative_tokens"))


def vllm_speculative(value: Callable[[str], Any]) -> Optional[dict]:
    """The speculative config vLLM builds from `value(name)` (a setting's value, None when unset):
    --speculative-config with --spec-method / --spec-model / --spec-tokens each setting its key
    (vllm-0.34.0/vllm/engine/arg_utils.py:2140-2155; a key set both ways is refused there, left to the first)."""
    spec = value("speculative_config")
    merged = dict(spec) if isinstance(spec, dict) else {}
    for name, key in _SPEC_KEYS:
        v = value(name)
        if v is not None and key not in merged:
            merged[key] = v
    return merged or None
