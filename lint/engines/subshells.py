"""`( ... )`: a subshell's assignments, exports, unsets and function definitions are lost when it ends.

Bash forks for `( list )` (bash manual, Compound Commands): what the list assigns is the child's, and after the `)`
every variable, array, export and function is what it was before the `(`. An engine started inside still runs, with
the child's values (`( LEN=200000; vllm serve ... ) &`), so the commands are read as usual and only the state is
put back when the `)` is met.

Checked with bash 5.2.15 and dash 0.5.12: `A=1; ( A=2; export B=3; f() { :; } ); echo "$A ${B-unset}"; type f`
prints `1 unset` and `f: not found`, in both shells; so does `A=(1); ( A+=(2) ); echo ${#A[@]}` (bash: 1).
`$( ... )` is never run by the splitter (its output is unknown), and a pipeline's `while` loop is a loop: what it
assigns is unknown after it, never its value.

Which `(` opens a subshell is told from the items alone: one where a command may start (after an operator or at
the start). `((`, bash's arithmetic command, is none (it assigns in the current shell), and a `)` met inside a
`case` with no subshell opened since the `case` is an arm's pattern (`a)`), never a subshell's end.
"""
from __future__ import annotations

from typing import Optional

from .lexer import Op, Word


class Mark:
    """A subshell's `(` (`opens`) or its `)`, in the items (a group of its own in shellwords._build_commands)."""

    __slots__ = ("opens", "saved")

    def __init__(self, opens: bool) -> None:
        self.opens = opens
        self.saved: Optional[tuple] = None


def _plain(it: object) -> str:
    if type(it) is Word and len(it.parts) == 1 and it.parts[0].kind == "lit" and not it.parts[0].quoted \
            and len(it.parts[0].runs) == 1:
        return it.parts[0].runs[0][0]
    return ""


def marked(items: list) -> list:
    """The items with each subshell's `(` and `)` made a Mark, the pair sharing one (its state saved at the `(`).
    One pass, so linear in the items."""
    out: list = []
    opened: list[Optional[Mark]] = []  # per open `(`: its Mark, or None when it opens no subshell
    cases: list[int] = []  # per open `case`: len(opened) when it began
    start = True  # may a command start here?
    for k, it in enumerate(items):
        if type(it) is Op and it.text == "(":
            nxt = items[k + 1] if k + 1 < len(items) else None
            # `((` typed together; `( (` with a blank between is two subshells
            double = type(nxt) is Op and nxt.text == "(" and nxt.start == it.end or (
                bool(out) and type(out[-1]) is Op and out[-1].text == "(" and out[-1].end == it.start)
            if start and not double:
                mark = Mark(True)
                opened.append(mark)
                out.append(mark)
                continue
            opened.append(None)
        elif type(it) is Op and it.text == ")":
            if opened and not (cases and len(opened) <= cases[-1]):
                mark = opened.pop()
                if mark is not None:
                    close = Mark(False)
                    close.saved = mark  # type: ignore[assignment]
                    out.append(close)
                    start = True
                    continue
        elif start and type(it) is Word:
            word = _plain(it)
            if word == "case":
                cases.append(len(opened))
            elif word == "esac" and cases:
                cases.pop()
        out.append(it)
        if type(it) is Op:
            start = not it.text.startswith("redir:")
        elif type(it) is Word:
            start = _plain(it) in ("do", "then", "else", "{", "!", "in", "elif", "while", "until", "if")
        else:
            start = True
    return out


def passed(mark: Mark, ctx) -> None:
    """At the `(`: save the state; at the `)`: put it back (a name an `if` before it had forked and the subshell
    assigned again is unknown: its branch values were dropped in place, scalar_branches.unfork)."""
    local = ctx.local
    if mark.opens:
        mark.saved = (dict(local), dict(local.partial), dict(local.scoped), dict(local.tokens), dict(ctx.arrays),
                      set(ctx.unsure), dict(ctx.exports), ctx.allexport, dict(ctx.functions), dict(local.forked),
                      list(local.forks), set(ctx.removed))
        return
    opening = mark.saved
    if opening is None or opening.saved is None:  # type: ignore[union-attr]
        return
    (values, partial, scoped, tokens, arrays, unsure, exports, allexport, functions, forked,
     forks, removed) = opening.saved  # type: ignore[union-attr]
    lost = [name for name in forked if name not in local.forked]
    dict.clear(local)
    dict.update(local, values)
    for now, then in ((local.partial, partial), (local.scoped, scoped), (local.tokens, tokens),
                      (ctx.arrays, arrays), (ctx.exports, exports), (ctx.functions, functions),
                      (local.forked, forked)):
        now.clear()
        now.update(then)
    for now_set, then_set in ((ctx.unsure, unsure), (ctx.removed, removed)):
        now_set.clear()
        now_set.update(then_set)
    local.forks[:] = forks
    ctx.allexport = allexport
    for name in lost:  # not known: set it so (dropping its worlds, as any assignment does)
        local[name] = None
        ctx.unsure.add(name)
