"""LMDeploy's `--quant-policy`: the KV-cache quantization, read three ways by release.

* 0.4.0 to 0.12.x: `type=int, choices=[0, 4, 8]` (InternLM/lmdeploy@v0.12.0:lmdeploy/cli/utils.py `quant_policy`;
  the 0.2.x-0.3.0 parser took any int, and is read here as 0.4.0's).
* 0.13.0: `type=int, choices=list(QuantPolicy)`, QuantPolicy NONE 0, INT4 4, INT8 8, TURBO_QUANT 42
  (InternLM/lmdeploy@v0.13.0:lmdeploy/cli/utils.py, lmdeploy/messages.py `QuantPolicy`).
* 0.14.0 on: a `_parse` type that takes the policy's name in any case (`none/int4/int8/fp8/fp8_e5m2/turbo_quant`,
  and `fp8_e4m3` for FP8) or one of its numbers, FP8 16 and FP8_E5M2 17 added, and raises ValueError on anything
  else, which argparse reports as "invalid _parse value" (InternLM/lmdeploy@refs/tags/v0.14.0:lmdeploy/cli/utils.py
  lines 272-282; the same in the lmdeploy-0.18.0 wheel: lmdeploy/cli/utils.py).

The reading is an int rule of suffixes.read_int, so FlagSpec.int_eras reports the names and numbers an earlier
release refuses (int_eras.era_problem) and drops them at a release known to refuse them.
"""
from __future__ import annotations

from .suffixes import IntReading, read_python_int

# QuantPolicy from 0.14.0 (lmdeploy-0.18.0 wheel: lmdeploy/messages.py): the CLI's names are its members' names
# lowercased, plus `fp8_e4m3` (cli/utils.py `_aliases['fp8_e4m3'] = QuantPolicy.FP8.value`)
NAMES = {"none": 0, "int4": 4, "int8": 8, "fp8": 16, "fp8_e5m2": 17, "turbo_quant": 42, "fp8_e4m3": 16}
_CHOICES = {"lmdeploy_qp": (0, 4, 8, 16, 17, 42), "lmdeploy_qp_013": (0, 4, 8, 42), "lmdeploy_qp_04": (0, 4, 8)}
# the KV-cache dtype each policy stores, by the names physics.kv reads (role facts' kv_cache_dtype): INT4/INT8 and
# TurboQuant as uint8 with scales, FP8 as float8_e4m3fn / float8_e5m2 (lmdeploy-0.18.0 wheel:
# lmdeploy/pytorch/engine/cache_engine/schema.py `_FP8_CACHE_DTYPES`, `_resolve_kv_cache_dtype`)
KV_DTYPES = {4: "int4", 8: "int8", 16: "fp8", 17: "fp8_e5m2", 42: "turbo_quant"}
FP8 = (16, 17)


def read_quant_policy(rule: str, text: str) -> IntReading:
    """`text` as one release era's `--quant-policy` parser reads it (rule: a key of _CHOICES)."""
    choices = _CHOICES[rule]
    if rule == "lmdeploy_qp":
        key = text.lower()
        if key in NAMES:
            return IntReading(NAMES[key], f"{text!r} = QuantPolicy {NAMES[key]}")
        reading = read_python_int(text)
        if not reading.ok or reading.value not in choices:  # `_parse` raises ValueError: argparse names the type
            return IntReading(None, "", f"invalid _parse value: {text!r} (takes none, int4, int8, fp8, fp8_e5m2, "
                                        "turbo_quant, or 0, 4, 8, 16, 17, 42)")
        return reading
    reading = read_python_int(text)
    if reading.ok and reading.value not in choices:  # the choices are not listed: an era spans several releases
        return IntReading(None, "", f"invalid choice: {reading.value}")
    return reading
