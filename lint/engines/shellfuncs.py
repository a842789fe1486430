"""Shell functions: a definition starts nothing, each call runs the body with the call's arguments.

    run_llama_server() {
      local default_args=(--host 0.0.0.0 --port 3191)
      build/bin/llama-server "${default_args[@]}" "$@"
    }
    run_llama_server --model /m/x.gguf --ctx-size 32768

Bash's manual (Shell Functions, gnu.org/software/bash/manual/html_node/Shell-Functions.html): a definition
`name () compound-command` (or `function name [()] compound-command`) stores the body, "executed whenever name is
specified as the name of a simple command"; "when a function is executed, the arguments to the function become
the positional parameters during its execution. The special parameter # that expands to the number of
positional parameters is updated to reflect the change", and they are restored when it returns. Its variables
are the caller's (dynamic scope), except those it declares `local` (or with `declare`/`typeset`), whose old
values come back on return. So a definition is no launch (one never called starts nothing), and each call is read
as the body's commands at the call, with `$@`, `$*`, `$1`... and `$#` the call's words (at the positions where
the call types them), in the script's state at the call. A call inside a function is read the same way, to a
bounded depth; a function calling itself is not followed again.

A function may come from a file the script sources (`source ../setup.sh`, `. "$(dirname "$0")/lib.sh"`) by a
path relative to the script's directory: only the definitions of that file are taken, and what its body holds is
located at the call's function name (the values are typed in the other file; the launch is the call).
The definitions themselves are found in the lexed items by function_defs.py.
"""
from __future__ import annotations

import re

from typing import TYPE_CHECKING, Callable, Optional

from ctxlint.lazyre import lazy_compile

from ctxlint.sourced import MAX_SOURCES, sourced_path

from .function_defs import _NAME, Defined, collapse
from .lexer import lex
from .shell_unset import removed
from .tokens import Command, Token

if TYPE_CHECKING:
    from .shellwords import SplitContext

_SIMPLE = lazy_compile(r"\$(?:[@*#1-9]|\{(?:[@*#]|[1-9])\})")  # `$1`, `${1}`, `"$@"`: not `${10}`, `${1:-x}`
# `${1:-x}`, `${1-x}`: the word where the call gives one (not null, for `:-`), else the default (word_expansion)
_DEFAULTED = lazy_compile(r"\$\{[1-9](:?)-.*\}", re.S)


class Positional:
    """`$@`, `$*`, `$1`..`$9`, `$#` inside a call: the call's words (their tokens, where the call types them);
    or the words a `set -- WORDS` gave (shell_set.py). `why`: "call" or "set", for what an unknown one is;
    `more`: unknown words may follow them (a `set -- "$@" ...` that may not run)."""

    __slots__ = ("tokens", "why", "more")

    def __init__(self, tokens: list[Token], why: str = "call", more: bool = False) -> None:
        self.tokens, self.why, self.more = tokens, why, more

    def lookup(self, part, start: int, end: int) -> Optional[tuple[list[Token], bool, bool]]:
        """(elements, joined, more) as shellarrays.lookup gives them, or None (unknown: the normal path)."""
        if len(part.runs) != 1:
            return None
        defaulted = None if _SIMPLE.fullmatch(part.runs[0][0]) else _DEFAULTED.fullmatch(part.runs[0][0])
        if defaulted is None and not _SIMPLE.fullmatch(part.runs[0][0]):
            return None
        name, tokens = part.name, self.tokens
        if defaulted is not None:  # given: that word; unset (or null, for `:-`): None, so the default is read
            index = int(name) - 1
            count = next((k for k, t in enumerate(tokens) if _uncounted(t)), len(tokens))
            if index >= count:  # no such word, or after one that may be no word (`f "$@"`): read as before
                return None
            if defaulted.group(1) and tokens[index].text == "":
                return None
            return tokens[index:index + 1], True, False
        if name in ("@", "*"):
            return (tokens, name == "*", self.more) if tokens or not self.more else None
        count = next((k for k, t in enumerate(tokens) if _uncounted(t)), len(tokens))  # words known to be there
        if name == "#":
            if count < len(tokens) or self.more:
                return None
            text = str(len(tokens))
            return [Token(text, start, end, (start,) * len(text), (end,) * len(text))], True, False
        index = int(name) - 1
        if index > count or self.more and index >= len(tokens):
            return None  # after a word that may be any number of words: which one is not known
        return (tokens[index:index + 1], True, False) if index < len(tokens) else ([], True, False)

    def shifted(self, program: list[Token]) -> "Positional":
        """`shift [n]`: the first n words are gone."""
        n = program[1].text if len(program) > 1 else "1"
        count = next((k for k, t in enumerate(self.tokens) if _uncounted(t)), len(self.tokens))
        if not n.isdigit() or int(n) > count:  # not known: an unknown word
            return Positional([self.tokens[count]] if count < len(self.tokens) else [], self.why, self.more)
        return Positional(self.tokens[int(n):], self.why, self.more)


def _uncounted(token: Token) -> bool:
    """A call word that may be no word or several: an unknown unquoted expansion (the word does not start with
    its quote), or `"$@"`/an array's `[@]` whatever the quotes."""
    unknown = token.unresolved
    if not unknown:
        return False
    return any(r.name in ("@", "*") or r.name.endswith(("[@]", "[*]")) for r in unknown) or \
        bool(token.starts) and token.start == token.starts[0]


def call(defined: Defined, program: list[Token], ctx: "SplitContext", depth: int, unsure: bool,
         build: Callable[[list, "SplitContext", int], list[Command]], max_depth: int) -> list[Command]:
    """The commands a call of `defined` runs (`program`: the call's words, expanded)."""
    if depth >= max_depth or defined.name in ctx.calling:
        return []  # recursion (or a chain too deep) is not followed: nothing of it is known
    items = defined.items
    if defined.text is not None:  # a sourced file's function: all of it at the call's name
        at = (program[0].start, program[0].end)
        items, problems = lex(defined.text, [at] * len(defined.text))
        items = collapse(items)
    saved, ctx.positional = ctx.positional, Positional(list(program[1:]))
    ctx.calling.append(defined.name)
    ctx.frames.append({})
    opaque = ctx.conditional  # after `&&`/`||` the call may not run: what it assigns is unknown everywhere
    ctx.flow += int(unsure)
    if opaque:
        ctx.local.branches.open(True)
    integers = set(ctx.integers)
    # script_exits.returned_here: where this call's body stands at its top level; a `return` that may have ended a
    # caller (ctx.returned) is inherited, as this call may not run then
    returned, ctx.return_marks = ctx.returned, ctx.return_marks + [(len(ctx.local.ifs), ctx.flow, ctx.subshells,
                                                                      len(ctx.local.branches.path))]
    try:
        return build(items, ctx, depth + 1)
    finally:
        ctx.returned, ctx.call_ended = returned, False
        ctx.flow = ctx.return_marks.pop()[1]  # (without the rise a `return` that may run made: returned_here)
        ctx.flow -= int(unsure)
        if opaque:
            ctx.local.branches.path.pop()
        frame = ctx.frames.pop()
        # a local's integer attribute (`local -i L`) is the local's: gone at return, the caller's L as it was
        # (bash 5.2.15, checked: after `f() { local -i L; }; f`, `L=3*3` is the text 3*3)
        ctx.integers.difference_update(frame.keys() - integers)
        ctx.integers.update(frame.keys() & integers)
        restore(frame, ctx)
        ctx.calling.pop()
        ctx.positional = saved


def declare_local(program: list[Token], ctx: "SplitContext") -> None:
    """`local NAME[=value]...` (or `declare`/`typeset`) in a function: its old value comes back on return."""
    frame = ctx.frames[-1]
    flags = {c for t in program[1:] if t.text.startswith("-") for c in t.text[1:]}
    if "g" in flags and program[0].text != "local":
        return  # `declare -g L=4096` in a function sets the global L (bash manual, declare: "-g ... global scope")
    for token in program[1:]:
        name = token.text.split("=", 1)[0].rstrip("+")
        if name in frame or not _NAME.fullmatch(name) or "." in name or ":" in name or "-" in name:
            continue
        frame[name] = saved(name, ctx)
        if "=" not in token.text and flags <= set("ailrux"):  # `local L`: a new L, unset in bash (not `-g`, `-n`);
            removed(name, ctx, ctx.flow > 0 or ctx.conditional or not ctx.bash)  # dash keeps it (shell_unset.py)


def saved(name: str, ctx: "SplitContext") -> tuple:
    """What `restore` puts back of a name: its value, partial and branch values, its array, its doubt, its export,
    whether it is readonly (bash 5.2.15: `f() { local L=1; readonly L; }; f; L=6` assigns 6: the local was)."""
    local = ctx.local
    return (name in local, dict.get(local, name), local.partial.get(name), local.scoped.get(name),
            name in ctx.arrays, ctx.arrays.get(name), name in ctx.unsure, ctx.exports.get(name), name in ctx.removed,
            ctx.readonly.get(name))


def restore(frame: dict, ctx: "SplitContext") -> None:
    local = ctx.local
    for name, (had, value, partial, scoped, had_array, array, unsure, exported, gone, readonly) in frame.items():
        (ctx.removed.add if gone else ctx.removed.discard)(name)  # unset before: unset again (shell_unset.py)
        if had:
            local[name] = value
        else:
            dict.pop(local, name, None)
        local.partial.pop(name, None)
        local.scoped.pop(name, None)
        if partial is not None:
            local.partial[name] = partial
        if scoped is not None:
            local.scoped[name] = scoped
        if had_array:
            ctx.arrays[name] = array
        else:
            ctx.arrays.pop(name, None)
        if not unsure:
            ctx.unsure.discard(name)
        else:  # a call's prefix made it known for the call (call_prefixes.py): in doubt again after it
            ctx.unsure.add(name)
        if exported is None:  # a local name's export attribute ends with it (`local -x`, `export` of a local)
            ctx.exports.pop(name, None)
        else:
            ctx.exports[name] = exported
        if readonly is None:  # a local made readonly (shell_readonly.py) is gone with it
            ctx.readonly.pop(name, None)
        else:
            ctx.readonly[name] = readonly


def source_functions(program: list[Token], ctx: "SplitContext") -> None:
    """`source FILE` / `. FILE` of a file beside the script: its function definitions are the script's now."""
    token = program[1]
    path = token.text if not token.unresolved else sourced_path(token.text)
    if path is None or ctx.sources_read >= MAX_SOURCES:
        return
    ctx.sources_read += 1
    text = ctx.sourcer(path)
    if not text:
        return
    items, _ = lex(text, None)
    for item in collapse(items):
        if type(item) is Defined:  # its body's text, lexed again at each call
            ctx.functions[item.name] = Defined(item.name, [], text[item.span[0]:item.span[1]])

