"""`( ... )`: a subshell's assignments, exports, unsets and function definitions are lost when it ends.

Bash forks for `( list )` (bash manual, Compound Commands): what the list assigns is the child's, and after the `)`
every variable, array, export and function is what it was before the `(`. An engine started inside still runs, with
the child's values (`( LEN=200000; vllm serve ... ) &`), so the commands are read as usual and only the state is
put back when the `)` is met.

Checked with bash 5.2.15 and dash 0.5.12: `A=1; ( A=2; export B=3; f() { :; } ); echo "$A ${B-unset}"; type f`
prints `1 unset` and `f: not found`, in both shells; so does `A=(1); ( A+=(2) ); echo ${#A[@]}` (bash: 1), and
`( readonly A=1 ); A=2` assigns 2.
`$( ... )` is never run by the splitter (its output is unknown), and a pipeline's `while` loop is a loop: what it
assigns is unknown after it, never its value.

Which `(` opens a subshell is told from the items alone: one where a command may start (after an operator or at
the start). `((`, bash's arithmetic command, is none (it assigns in the current shell), and a `)` met inside a
`case` with no subshell opened since the `case` is an arm's pattern (`a)`), never a subshell's end.

Only the names the subshell may change are saved, so that reading stays linear in the script: every name its words
spell (an assignment, `export`, `unset`, `read`, `for`, a quoted string `eval` reads), and those of the functions
it calls, each body read once per call as the call itself is. A subshell that runs `eval`, `source` or a shell
(whose words may name anything) saves the whole state instead.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .lex_words import Op, Word
from .tokens import SHELLS

_IDENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPAQUE = frozenset({"eval", "source", "."}) | SHELLS  # words that may change names the subshell never spells
_GONE = object()


class Mark:
    """A subshell's `(` (`opens`) or its `)`, in the items (a group of its own in shell_commands.command_groups).
    An opening one holds the names its words spell (None: any name), and once read the state it saves."""

    __slots__ = ("opens", "names", "saved", "pair")

    def __init__(self, opens: bool) -> None:
        self.opens = opens
        self.names: Optional[set[str]] = set()
        self.saved: list[tuple] = []  # one per reading under way (a function's `( )` in a recursive call)
        self.pair: Optional[Mark] = None


def _plain(it: object) -> str:
    if type(it) is Word and len(it.parts) == 1 and it.parts[0].kind == "lit" and not it.parts[0].quoted \
            and len(it.parts[0].runs) == 1:
        return it.parts[0].runs[0][0]
    return ""


def _spelled(word: Word, names: set[str]) -> bool:
    """Add the names a word spells; False when it is one that may change any name (`eval`, `source`, a shell)."""
    for part in word.parts:
        for run in part.runs:
            names.update(_IDENT.findall(run[0]))
        if part.name:
            names.update(_IDENT.findall(part.name))
    for element in word.array or ():
        _spelled(element, names)
    return _plain(word) not in _OPAQUE


def marked(items: list) -> list:
    """The items with each subshell's `(` and `)` made a Mark, the `)` paired with its `(`. One pass, so linear
    in the items (the names of a nested subshell are added to the one around it when it closes)."""
    out: list = []
    opened: list[Optional[Mark]] = []  # per open `(`: its Mark, or None when it opens no subshell
    inner: list[Mark] = []  # the subshells open, innermost last
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
                inner.append(mark)
                out.append(mark)
                continue
            opened.append(None)
        elif type(it) is Op and it.text == ")":
            if opened and not (cases and len(opened) <= cases[-1]):
                mark = opened.pop()
                if mark is not None:
                    inner.pop()
                    if inner and inner[-1].names is not None:
                        if mark.names is None:
                            inner[-1].names = None
                        else:
                            inner[-1].names |= mark.names
                    close = Mark(False)
                    close.pair = mark
                    out.append(close)
                    start = True
                    continue
        elif type(it) is Word:
            if inner and inner[-1].names is not None and not _spelled(it, inner[-1].names):
                inner[-1].names = None
            word = _plain(it) if start else ""
            if word == "case":
                cases.append(len(opened))
            elif word == "esac" and cases:
                cases.pop()
        elif inner and type(it) is not Op:  # a function defined, a here-document read as a script: save all
            inner[-1].names = None
        out.append(it)
        if type(it) is Op:
            start = not it.text.startswith("redir:")
        elif type(it) is Word:
            start = _plain(it) in ("do", "then", "else", "{", "!", "in", "elif", "while", "until", "if", "time")
        else:
            start = True
    return out


def _called(names: set[str], functions: dict) -> Optional[set[str]]:
    """The names plus those the functions they name spell, through the functions those call (None: any)."""
    out, todo, seen = set(names), [n for n in names if n in functions], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        defined = functions[name]
        found: set[str] = set()
        if defined.text is not None:
            found.update(_IDENT.findall(defined.text))
        else:
            for it in defined.items:
                if type(it) is Word:
                    if not _spelled(it, found):
                        return None
                elif type(it) is not Op:
                    return None
        todo.extend(n for n in found - out if n in functions)
        out |= found
    return out


def _state(name: str, ctx) -> tuple:
    local = ctx.local
    return (dict.get(local, name, _GONE), local.partial.get(name, _GONE), local.scoped.get(name, _GONE),
            local.tokens.get(name, _GONE), ctx.arrays.get(name, _GONE), ctx.exports.get(name, _GONE),
            ctx.functions.get(name, _GONE), local.forked.get(name, _GONE), name in ctx.unsure, name in ctx.removed,
            ctx.frames[-1].get(name, _GONE) if ctx.frames else _GONE)


def _tables(ctx) -> tuple:
    """Copies of every table a subshell may change, and of the function frame's `local` names."""
    local = ctx.local
    return (dict(local), dict(local.partial), dict(local.scoped), dict(local.tokens), dict(ctx.arrays),
            dict(ctx.exports), dict(ctx.functions), dict(local.forked), set(ctx.unsure), set(ctx.removed),
            dict(ctx.frames[-1]) if ctx.frames else {})


def _names(tables) -> set:
    out: set = set()
    for table in tables:
        out.update(table)
    return out


def _restore_tables(saved: tuple, ctx) -> None:
    """Every table as `_tables` copied it; a name an `if` had forked that the subshell assigned again is unknown
    (as `passed` says), and the frame's entries of every name either side held are put back."""
    local = ctx.local
    frame = ctx.frames[-1] if ctx.frames else {}
    now = (local, local.partial, local.scoped, local.tokens, ctx.arrays, ctx.exports, ctx.functions, local.forked,
           ctx.unsure, ctx.removed)
    before = _names(saved[:10])
    names = _names(now) | before
    lost = [name for name in saved[7] if name not in local.forked]
    dict.clear(local)
    dict.update(local, saved[0])
    for table, was in zip(now[1:], saved[1:10]):
        table.clear()
        table.update(was)
    held = {name: value for name, value in saved[10].items() if name in before}
    for name in (set(frame) | set(held)) & names:
        if name in held:
            frame[name] = held[name]
        else:
            del frame[name]
    for name in lost:  # not known: set it so (dropping its worlds, as any assignment does)
        local[name] = None
        ctx.unsure.add(name)


def passed(mark: Mark, ctx) -> None:
    """At the `(`: save the state of the names the subshell may change; at the `)`: put it back. A name an `if`
    before it had forked and the subshell assigned again is unknown: its branch values were dropped in place
    (scalar_branches.unfork)."""
    local = ctx.local
    if mark.opens:
        names = _called(mark.names, ctx.functions) if mark.names is not None else None
        every = names is None
        # any name (`( eval ... )`): every table copied whole, at C speed, not a tuple per name (a script of
        # thousands of variables and such subshells was quadratic in Python: fuzz27)
        states = _tables(ctx) if every else {name: _state(name, ctx) for name in names}
        mark.saved.append((states, len(local.forks), ctx.allexport, every, ctx.positional, dict(ctx.readonly),
                           ctx.discard, set(ctx.integers)))
        return
    opening = mark.pair
    if opening is None or not opening.saved:
        return
    # `( set -- ... )`, `( shift )`, `( readonly L )` (shell_readonly.py) too
    # a failed readonly assignment inside ends the subshell, not the script's command (shell_readonly.py)
    states, forks, allexport, every, ctx.positional, ctx.readonly, ctx.discard, integers = opening.saved.pop()
    # `( declare -i L )`, `echo x | declare -i L`: the integer attribute stays in the subshell (bash 5.2.15:
    # a later `L=5+1` assigns the text 5+1)
    ctx.integers.clear()
    ctx.integers.update(integers)
    del local.forks[forks:]
    ctx.allexport = allexport
    if every:
        _restore_tables(states, ctx)
        return
    frame = ctx.frames[-1] if ctx.frames else {}  # a function's `local` inside: not local after the `)`
    for name, (value, partial, scoped, token, array, exported, function, forked, unsure, gone, held) in states.items():
        lost = forked is not _GONE and name not in local.forked
        for table, was in ((local.partial, partial), (local.scoped, scoped), (local.tokens, token),
                           (ctx.arrays, array), (ctx.exports, exported), (ctx.functions, function),
                           (local.forked, forked), (frame, held)):
            if was is _GONE:
                table.pop(name, None)
            else:
                table[name] = was
        if value is _GONE:
            dict.pop(local, name, None)
        else:
            dict.__setitem__(local, name, value)
        (ctx.unsure.add if unsure else ctx.unsure.discard)(name)
        (ctx.removed.add if gone else ctx.removed.discard)(name)
        if lost:  # not known: set it so (dropping its worlds, as any assignment does)
            local[name] = None
            ctx.unsure.add(name)
