"""Integer reading exactly as each engine's own CLI reads it.

The same text means different numbers on different engines (`1M` is
1,048,576 on vLLM and 1,000,000 on SGLang; `128K` is an error on SGLang;
llama.cpp's std::stoi reads `128k` as 128), so a linter must never normalise
with one rule. Sources (engines.md §0, §1.1, §2.1 and the engines' code):

* vLLM `human_readable_int` (vllm/engine/arg_utils.py, later
  vllm/utils/argparse_utils.py): `(\\d+(\\.\\d+)?)([kKmMgGtT])`, lowercase
  decimal, uppercase binary, decimal numbers refused with a binary suffix;
  anything else goes to Python `int()`. `human_readable_int_or_auto` adds
  `-1`/`auto` (newest main, max-model-len only).
* SGLang `human_readable_int` (python/sglang/srt/utils/common.py): SI `k M G T`
  and IEC `Ki Mi Gi Ti`, case-sensitive, decimals only with SI suffixes.
* argparse `type=int` (LMDeploy, SGLang/vLLM plain int flags) and click
  `INT` (trtllm-serve): Python `int()`.
* clap `usize` (TGI): ASCII digits only (Rust `str::parse`, a leading `+` ok).
* llama.cpp `std::stoi` (common/arg.cpp): leading blanks, optional sign,
  leading digits; the rest of the text is silently ignored.
"""
from __future__ import annotations

import re
from typing import Optional

from ctxlint.lazyre import lazy_compile

from ..records import record


@record(frozen=True)
class IntReading:
    value: Optional[int]
    note: str = ""  # how the text was read, for the finding's explanation
    error: Optional[str] = None  # the engine's own error text when it refuses

    @property
    def ok(self) -> bool:
        return self.error is None


_VLLM = lazy_compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_VLLM_DEC = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_VLLM_BIN = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SGL = lazy_compile(r"(\d+(?:\.\d+)?)(k|M|G|T|Ki|Mi|Gi|Ti)")
_SGL_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_SGL_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _py_int(text: str) -> Optional[int]:
    """Python int(): blanks, sign and `_` separators are allowed."""
    try:
        return int(text)
    except (ValueError, TypeError):
        return None


def read_vllm(text: str, allow_auto: bool = False) -> IntReading:
    s = text.strip()
    if allow_auto and s.lower() in ("-1", "auto"):
        return IntReading(-1, f"{text!r} = -1: auto-fit max_model_len to the KV memory (newest vLLM main only)")
    m = _VLLM.fullmatch(s)
    if m:
        number, suffix = m.groups()
        if suffix in _VLLM_DEC:
            value = int(float(number) * _VLLM_DEC[suffix])
            return IntReading(value, f"{text!r} = {number} x 10^{len(str(_VLLM_DEC[suffix])) - 1} "
                                     f"(vLLM: lowercase {suffix} is decimal) = {value:,}")
        if "." in number:
            return IntReading(None, "", f"Decimals are not allowed with binary suffixes like {suffix}. "
                                        f"Did you mean to use {number}{suffix.lower()} instead?")
        value = int(number) * _VLLM_BIN[suffix]
        return IntReading(value, f"{text!r} = {number} x 2^{_VLLM_BIN[suffix].bit_length() - 1} "
                                 f"(vLLM: uppercase {suffix} is binary) = {value:,}")
    value = _py_int(s)
    if value is None:
        kind = "human_readable_int_or_auto" if allow_auto else "human_readable_int"
        return IntReading(None, "", f"invalid {kind} value: {text!r}")
    return IntReading(value, "plain integer")


def read_sglang(text: str) -> IntReading:
    s = text.strip()
    m = _SGL.fullmatch(s)
    if m:
        number, suffix = m.groups()
        if suffix in _SGL_SI:
            value = int(float(number) * _SGL_SI[suffix])
            return IntReading(value, f"{text!r} = {number} x 10^{len(str(_SGL_SI[suffix])) - 1} "
                                     f"(SGLang: {suffix} is an SI suffix) = {value:,}")
        if "." not in number:
            value = int(number) * _SGL_IEC[suffix]
            return IntReading(value, f"{text!r} = {number} x 2^{_SGL_IEC[suffix].bit_length() - 1} "
                                     f"(SGLang: {suffix} is an IEC suffix) = {value:,}")
    elif _py_int(s) is not None:
        return IntReading(_py_int(s), "plain integer")
    return IntReading(None, "", f"Invalid integer value: {text!r}. Use a plain integer, SI suffixes "
                                "(1k, 1M), or IEC suffixes (1Ki, 1Mi). Suffixes are case-sensitive.")


def suffix_fix(rule: str, text: str) -> Optional[str]:
    """The spelling a rule accepts for a refused value whose meaning is certain, else None.

    Only SGLang's missing `K`: `128K` is 131,072 to vLLM (and to anyone writing K for 1024),
    and SGLang spells that `128Ki`; its `k` would be 128,000, a different number. Other
    refusals (`4k` to TGI: 4,000 or 4,096?) have no certain reading and get no fix.
    """
    if rule == "sglang" and re.fullmatch(r"\d+K", text) and not read_sglang(text).ok:
        return text + "i"
    return None


def read_python_int(text: str, flavor: str = "argparse") -> IntReading:
    value = _py_int(text)
    if value is not None:
        return IntReading(value, "plain integer")
    if flavor == "click":
        return IntReading(None, "", f"{text!r} is not a valid integer.")
    return IntReading(None, "", f"invalid int value: {text!r}")


def read_clap_usize(text: str) -> IntReading:
    s = text[1:] if text.startswith("+") else text
    if s.isascii() and s.isdigit():
        return IntReading(int(s), "plain integer")
    why = "cannot parse integer from empty string" if not s else "invalid digit found in string"
    return IntReading(None, "", f"invalid value {text!r}: {why}")


def read_stoi(text: str) -> IntReading:
    m = re.match(r"[ \t\n\r\f\v]*([+-]?\d+)", text)
    if not m:
        return IntReading(None, "", "stoi")  # std::invalid_argument's what() is just "stoi"
    value = int(m.group(1))
    if not -2**31 <= value < 2**31:
        return IntReading(None, "", "stoi")  # std::out_of_range
    rest = text[m.end():]
    if rest:
        return IntReading(value, f"{text!r} read as {value} by std::stoi; the trailing {rest!r} is ignored")
    return IntReading(value, "plain integer")


def read_int(rule: str, text: str) -> IntReading:
    """Read text with one engine rule; never raises.

    rule: "vllm", "vllm_auto", "sglang", "argparse", "click", "clap", "stoi", or LMDeploy's `--quant-policy`
    eras "lmdeploy_qp", "lmdeploy_qp_013", "lmdeploy_qp_04" (lmdeploy_quant.py).
    """
    if not isinstance(text, str):
        return IntReading(None, "", f"not a string: {text!r}")
    if rule == "vllm":
        return read_vllm(text)
    if rule == "vllm_auto":
        return read_vllm(text, allow_auto=True)
    if rule == "sglang":
        return read_sglang(text)
    if rule == "clap":
        return read_clap_usize(text)
    if rule == "stoi":
        return read_stoi(text)
    if rule.startswith("lmdeploy_qp"):
        from .lmdeploy_quant import read_quant_policy  # only an LMDeploy --quant-policy pays for the import
        return read_quant_policy(rule, text)
    return read_python_int(text, "click" if rule == "click" else "argparse")


def read_float(rule: str, text: str) -> tuple[Optional[float], Optional[str]]:
    """Float as the engine reads it: Python float() for argparse/click, Rust f32 for clap."""
    try:
        if rule in ("clap", "stoi") and text.strip() != text:
            raise ValueError
        return float(text), None
    except (ValueError, TypeError):
        if rule == "click":
            return None, f"{text!r} is not a valid float."
        if rule == "clap":
            return None, f"invalid value {text!r}: invalid float literal"
        if rule == "stoi":
            return None, "stof"
        return None, f"invalid float value: {text!r}"
