"""Token counts as the native manifest spells them.

Integers (YAML `1_048_576` included), digit strings, or a number with an explicit
suffix: SI `k`, `M`, `G` (powers of 1000) or IEC `Ki`, `Mi`, `Gi` (powers of 1024).
Engines disagree on what `1M` means (vLLM: 1,048,576; SGLang: 1,000,000), so the
manifest refuses every spelling whose meaning is not written out: a bare `K`,
lowercase `m`/`g`, `KB`, `MiB` and the like are errors that name both readings.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Union

from ctxlint.lazyre import lazy_compile

if TYPE_CHECKING:
    from decimal import Decimal

SI = {"k": 10**3, "M": 10**6, "G": 10**9}
IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
MAX_TOKENS = 10**12  # no deployment has a trillion-token window; larger is a typo
_FORM = lazy_compile(r"^\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")

# Spellings people write, mapped to the (SI, IEC) pair they might have meant.
_AMBIGUOUS = {"K": ("k", "Ki"), "m": ("M", "Mi"), "g": ("G", "Gi"), "KB": ("k", "Ki"),
              "kb": ("k", "Ki"), "MB": ("M", "Mi"), "GB": ("G", "Gi"), "KiB": ("k", "Ki"),
              "MiB": ("M", "Mi"), "GiB": ("G", "Gi"), "ki": ("k", "Ki"), "mi": ("M", "Mi"),
              "gi": ("G", "Gi"), "KI": ("k", "Ki"), "MI": ("M", "Mi"), "GI": ("G", "Gi")}


class TokenCountError(ValueError):
    """The value is not a valid token count; the message says why and what to write."""


def parse_token_count(value: object) -> int:
    """Return the token count `value` stands for, or raise TokenCountError."""
    if isinstance(value, bool):
        raise TokenCountError(f"{str(value).lower()} is not a token count (YAML read a boolean)")
    if isinstance(value, int):
        return _check_range(value, str(value))
    if isinstance(value, float):
        if value.is_integer():
            raise TokenCountError(f"{value!r} is a float; write the integer {int(value)} "
                                  f"(or '{_suggest_suffix(int(value))}')")
        raise TokenCountError(f"{value!r} is not a whole number of tokens")
    if not isinstance(value, str):
        raise TokenCountError(f"expected a token count, got a {type(value).__name__}")
    return _parse_text(value)


def _parse_text(text: str) -> int:
    match = _FORM.match(text)
    if not match:
        raise TokenCountError(f"'{text}' is not a token count: write an integer such as 131072 "
                              "or a number with a suffix k, M, G (x1000) or Ki, Mi, Gi (x1024)")
    digits, suffix = match.group(1).replace("_", "").replace(",", ""), match.group(2)
    if not suffix and digits.isdigit():  # the common case: no decimal module needed
        return _check_range(int(digits), text)
    from decimal import Decimal, InvalidOperation  # exact: 1.5k is 1,500, never 1,499.999...

    try:
        number = Decimal(digits)
    except InvalidOperation:  # pragma: no cover - the regex admits only decimals
        raise TokenCountError(f"'{text}' is not a number") from None
    if suffix in _AMBIGUOUS:
        si, iec = _AMBIGUOUS[suffix]
        raise TokenCountError(
            f"'{text}' is ambiguous: write '{digits}{si}' for {_scaled(number, SI[si], text)} "
            f"or '{digits}{iec}' for {_scaled(number, IEC[iec], text)} "
            "(engines disagree: vLLM reads 1M as 1,048,576, SGLang as 1,000,000)")
    if suffix and suffix not in SI and suffix not in IEC:
        raise TokenCountError(f"'{text}': unknown suffix '{suffix}'; use k, M, G (x1000) "
                              "or Ki, Mi, Gi (x1024)")
    scaled = number * (SI.get(suffix) or IEC.get(suffix) or 1)
    if scaled != scaled.to_integral_value():
        raise TokenCountError(f"'{text}' is {scaled} tokens, not a whole number")
    return _check_range(int(scaled), text)


def _scaled(number: Decimal, factor: int, text: str) -> str:
    value = number * factor
    return f"{int(value):,}" if value == value.to_integral_value() else str(value)


def _check_range(count: int, text: str) -> int:
    if count <= 0:
        raise TokenCountError(f"{text} is not a positive token count")
    if count > MAX_TOKENS:
        raise TokenCountError(f"{count:,} tokens is implausibly large (over {MAX_TOKENS:,}); "
                              "check for a typo")
    return count


def _suggest_suffix(count: int) -> str:
    for suffix, factor in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10), ("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if count % factor == 0 and count >= factor:
            return f"{count // factor}{suffix}"
    return str(count)


def describe(value: Union[int, str]) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)
