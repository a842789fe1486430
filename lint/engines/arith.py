"""Shell arithmetic expansion, `$(( expr ))`, for the integers launch scripts compute."""
from __future__ import annotations

import re
from typing import Callable, Optional

from ctxlint.lazyre import lazy_compile

_ARITH = lazy_compile(r"\$\(\((.*)\)\)", re.S)
_ARITH_NAME = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$?([A-Za-z_][A-Za-z0-9_]*)")
_ARITH_SAFE = lazy_compile(r"[0-9+\-*/%() \t]*")


def arithmetic(text: str, lookup: Callable[[str], Optional[str]]) -> Optional[str]:
    """The value of `$(( expr ))` when every variable in it is a known integer, else None.

    SkyPilot runs and launch scripts compute parallel sizes this way
    (`TP=$(($SKYPILOT_NUM_GPUS_PER_NODE * $SKYPILOT_NUM_NODES))`). Only integer + - * / % and
    parentheses are evaluated; anything else stays unresolved."""
    m = _ARITH.fullmatch(text.strip())
    if not m:
        return None
    if "=" in m.group(1) or "++" in m.group(1) or "--" in m.group(1):  # `$(( L++ ))`, `$(( L += 2 ))` assign
        from .arith_commands import assigning_value
        assigns, value = assigning_value(m.group(1), lookup)
        if assigns:
            return value
    unknown = []

    def value(ref) -> str:
        name = ref.group(1) or ref.group(2)
        found = lookup(name)
        if found is None or not found.strip().lstrip("-").isdigit():
            unknown.append(name)
            return "0"
        return found.strip()
    expr = _ARITH_NAME.sub(value, m.group(1))
    if unknown or not _ARITH_SAFE.fullmatch(expr) or len(expr) > 200:
        return None
    found = _Arith(re.findall(r"\d+|[-+*/%()]", expr)).run()
    return None if found is None else str(found)


class _Arith:
    """Integer + - * / % with parentheses and unary minus, as the shell evaluates them (division
    truncates toward zero); None on anything malformed."""

    def __init__(self, tokens: list[str]) -> None:
        self.t, self.i, self.depth = tokens, 0, 0

    def run(self) -> Optional[int]:
        try:
            value = self.sum()
        except (ValueError, ZeroDivisionError, IndexError):
            return None
        return value if self.i == len(self.t) else None

    def _peek(self) -> str:
        return self.t[self.i] if self.i < len(self.t) else ""

    def sum(self) -> int:
        value = self.product()
        while self._peek() in ("+", "-"):
            op = self.t[self.i]
            self.i += 1
            value = _int64(value + self.product() if op == "+" else value - self.product())
        return value

    def product(self) -> int:
        value = self.unary()
        while self._peek() in ("*", "/", "%"):
            op = self.t[self.i]
            self.i += 1
            right = self.unary()
            if op == "*":
                value = _int64(value * right)
            else:
                quotient = _int64(abs(value) // abs(right) * (1 if (value < 0) == (right < 0) else -1))
                value = quotient if op == "/" else value - quotient * right
        return value

    def unary(self) -> int:
        tok = self._peek()
        if tok in ("-", "+"):
            self.i += 1
            return _int64(-self.unary()) if tok == "-" else self.unary()
        if tok == "(":
            self.depth += 1
            if self.depth > 20:
                raise ValueError("too deep")
            self.i += 1
            value = self.sum()
            if self._peek() != ")":
                raise ValueError("unbalanced")
            self.i += 1
            self.depth -= 1
            return value
        if tok.isdigit():
            self.i += 1
            # a leading 0 is octal (bash manual, Shell Arithmetic: `010` is 8; `08` an error)
            return _int64(int(tok, 8) if len(tok) > 1 and tok[0] == "0" else int(tok))
        raise ValueError(f"unexpected {tok!r}")


def _int64(value: int) -> int:
    """`value` where bash's 64-bit arithmetic holds it; past that it wraps (2**63 - 1 + 1 is -2**63), which is not
    evaluated here: ValueError, the value unknown."""
    if not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("past 64 bits")
    return value
