"""Engine settings in a manifest that the engine itself would refuse.

A native manifest writes engine settings as raw YAML (`context_length: 128K`).
Command-line adapters report refused values from the engine's own parser; this
does the same for manifest values, with the engine's own integer rule, so both
reach the CTX301 rule as "engine-rejects-value" diagnostics.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Optional

from ctxlint.engines.suffixes import suffix_fix
from ctxlint.engines.values import int_rule, normalize_engine, read_setting_int
from ctxlint.findings import Diagnostic, Fix
from ctxlint.model import Role, Val

ENGINE_REJECTS_VALUE = "engine-rejects-value"
_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "trtllm": "TensorRT-LLM", "llamacpp": "llama.cpp",
          "lmdeploy": "LMDeploy", "tgis": "IBM TGIS"}


def engine_label(engine: str) -> str:
    return _NAMES.get(engine, engine)


def rejected_values(engine: Optional[Val], roles: Iterable[Role], deployment: Optional[str]) -> Iterator[Diagnostic]:
    """A diagnostic for every integer engine_args value the named engine would not parse."""
    name = normalize_engine(engine.value if engine is not None else None)
    if name is None:
        return
    for role in roles:
        for key, val in role.engine_args:
            reading = read_setting_int(name, key, val.value)
            if reading is None or reading.ok:
                continue
            where = val.source.path or key
            fixed = suffix_fix(int_rule(name, key) or "", val.value) if isinstance(val.value, str) else None
            yield Diagnostic(
                ENGINE_REJECTS_VALUE,
                f"{where}: {engine_label(name)} refuses {key} = {val.value!r} and does not start "
                f"({reading.error.rstrip('.')}). Write the plain integer you mean",
                val.source, deployment, Fix(val.value, fixed) if fixed else None)
