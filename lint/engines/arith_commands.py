"""`(( EXPR ))` and `let EXPR...`: bash's arithmetic commands, which assign in the current shell.

bash evaluates the expression as `$(( ))` does and its assignment operators change the variable (bash manual, Shell
Arithmetic: `id++ id--` and `++id --id`, `= *= /= %= += -= <<= >>= &= ^= |=`; Conditional Constructs, `((...))`;
Bash Builtins, `let`). Read as a command before, `(( L++ ))` left L as it was and `((L=L*2))` set it to the text
`L*2` (a false CTX301 where `--max-model-len $L` followed). One update of one variable by integers this module
evaluates (arith.py: + - * / % and parentheses, every variable a known integer) gives its new value; any other
assignment in the expression (a comma list, `<<=`, an unset or unknown variable, which bash reads as 0 but the
environment may set) leaves the variables it assigns unknown, and inside a loop or branch, or after `&&`/`||`, every
one is unknown, as a plain assignment there is. An expression that assigns nothing (`(( i < 3 ))`) changes nothing.
"""
from __future__ import annotations

import re
from typing import Sequence

from ctxlint.lazyre import lazy_compile

from .arith import arithmetic
from .lex_words import Word

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# one update: `++L`, `L--`, `L = EXPR`, `L += EXPR` (`==` is a comparison, never `=`)
_ONE = lazy_compile(rf"\s*(?:(\+\+|--)\s*({_NAME})|({_NAME})\s*(\+\+|--)|({_NAME})\s*([-+*/%]?)=(?!=)(.*))\s*", re.S)
# every variable an expression may assign (`a = b++`, `x <<= 2`, `i++, j--`)
# (an array element's, `L[0] = 3`, is the variable's: `$L` is L[0])
_ASSIGNED = lazy_compile(rf"({_NAME})(?:\[[^]]*\])?\s*(?:\+\+|--|(?:<<|>>|[-+*/%&^|])?=(?!=))|(?:\+\+|--)\s*({_NAME})")


def raw(word: Word) -> str:
    """A word as the arithmetic reads it: its characters, `$X` references as typed."""
    return "".join(run[0] for part in word.parts for run in part.runs)


def arith_command(texts: Sequence[str], ctx, unsure: bool) -> None:
    """Apply the expressions `texts` (one for `(( ))`, one a word for `let`) to the script's variables."""
    for text in texts:
        names = {a or b for a, b in _ASSIGNED.findall(text)}
        if not names:
            continue
        one = _ONE.fullmatch(text) if len(names) == 1 and "," not in text else None
        value = None if one is None or unsure else _updated(one, ctx)  # known only for one name
        for name in sorted(names):
            ctx.local[name] = value
            if unsure:
                ctx.unsure.add(name)


def _updated(one, ctx):
    """The variable's new value (a string), or None when it is not decidable here."""
    prefix, pre_name, post_name, postfix, name, op, expr = one.groups()
    if name is None:
        name = pre_name or post_name
        return arithmetic(f"$(({name} {'+' if (prefix or postfix) == '++' else '-'} 1))", ctx.lookup)
    if _ASSIGNED.search(expr):
        return None  # `L = M++`: M changes too
    return arithmetic(f"$(({name} {op} ({expr})))" if op else f"$(({expr}))", ctx.lookup)
