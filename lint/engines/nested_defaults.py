"""`${MAX_LEN:-${DEFAULT_LEN}}` and `${MAX_LEN:-${DEFAULT_LEN:-8192}}`: a default that is itself a variable.

bash expands the word after `:-` (bash manual, Shell Parameter Expansion: "word is subject to tilde expansion,
parameter expansion, command substitution, and arithmetic expansion"), so a variable nothing sets takes the inner
variable's value, or the inner one's own default; checked with bash 5.2 and dash 0.5.12:
`B=4096; echo ${A:-${B}} ${A:-${C:-8192}} "${A:-"${C:-"16384"}"}"` prints `4096 8192 16384`. Read here when the
inner value is known: a variable the script (or the environment ctxlint is given) sets, or, for one nothing sets,
a plain inner default. Anything else (an inner variable the script set to a value ctxlint does not hold, one set
nowhere without a default, a default that expands further) stays unknown, as before.
A variable set to "" takes a `:-` (or `:=`) default, the outer one's or the inner one's (`A=""; B=""; echo
${A:-${B:-8192}}` prints 8192: `:` tests for null too), and a quoted inner default is one word unquoted outside it
(`${A:-${C:-"5 6"}}` is `5 6`), as bash and dash expand them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ctxlint.lazyre import lazy_compile

if TYPE_CHECKING:
    from .word_expansion import SplitContext

# `$NAME`, `${NAME}`, `${NAME:-plain}` (also `-`, `:=`, `=`), the whole default
_INNER = lazy_compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^${}`\\']*))?\})")


def nested_default(part, default: str, begin: int, ctx: "SplitContext"
                   ) -> Optional[tuple[str, tuple[int, ...], tuple[int, ...], bool]]:
    """(text, starts, ends, quoted) of `part`'s default `${...}`, which is typed at `begin` of its run, when the
    inner value is known; None otherwise."""
    raw, starts, ends = part.runs[0]
    quoted = len(default) >= 2 and default[0] == default[-1] == '"'
    if quoted:
        default, begin = default[1:-1], begin + 1
    found = _INNER.fullmatch(default)
    if found is None:
        return None
    name = found.group(1) or found.group(2)
    at, to = starts[begin], ends[begin + len(default) - 1]
    value = ctx.lookup(name)
    inner = found.group(4)
    if value is not None and not (value == "" and inner is not None and found.group(3).startswith(":")):
        return value, (at,) * len(value), (to,) * len(value), quoted  # the inner variable's, where it is typed
    if value is None and name in ctx.local or inner is None:
        return None  # set to a value not known here, or set nowhere with no default of its own: not known
    first = begin + found.start(4)
    inner_quoted = len(inner) >= 2 and inner[0] == inner[-1] == '"'
    if inner_quoted:  # `${A:-${C:-"5 6"}}` is one word `5 6` even unquoted outside (bash, dash)
        inner, first = inner[1:-1], first + 1
    if not inner or '"' in inner:
        return None
    return inner, starts[first:first + len(inner)], ends[first:first + len(inner)], quoted or inner_quoted
