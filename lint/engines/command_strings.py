"""A command line kept in a variable whose value is only partly known, then run as the command:

    server_command="vllm serve $MODEL --tensor-parallel-size 2 --max-model-len 8192"
    $server_command &                  # or: bash -c "$server_command" &, eval "$server_command" &

MODEL is the caller's, so the variable's value is not known as a whole, and the command it runs used to be
dropped: no role, no finding, where the same line typed inline is a role with CTX008 for `$MODEL`. Here
the assignment's value is kept as typed (the known words, and each unknown reference as the reference
itself, at the positions where they are typed). An unquoted expansion of the variable as a command's first
word (after `exec`, `nohup`, `NAME=value` and the like) gives those words, field-split as bash splits an
unquoted expansion; a double-quoted `sh -c` script or `eval`'s words that expand it give them as text the
inner reading parses (outer_expansion.py). The role appears, its unknown values CTX008 where the assignment
types them. Nowhere else: a variable that merely mentions an engine (a usage string, `echo "$server_command"`,
an argument of another program) starts nothing, and an assignment inside a loop, after `&&`, or inside an
`if` branch (outside that branch: branches.py) stays unknown as a whole, but for one that appends to the variable's
own value there (`CMD="$CMD --flag $x"`): the words before it, then an unknown rest (`_appended`).
"""
from __future__ import annotations

from typing import Optional, Sequence

from .branches import Branches
from .lex_words import Part, Word
from .command_prefixes import ASSIGN
from .outer_expansion import MARK
from .tokens import Token, VarRef

_DECLARES = frozenset({"export", "readonly", "declare", "local", "typeset"})
# reserved words a command's assignments may follow on one line (`if ...; then CMD="$CMD --flag"; fi`)
LEADING_KEYWORDS = frozenset({"then", "do", "else", "{", "!", "time"})


class Locals(dict):
    """The script's variables (name -> value, None when not known), and beside them `partial`: for a variable
    whose last assignment has unknown parts, that value as typed (a Token); `scoped`: for one assigned inside an
    `if` branch, (the branch, its value or None, its partial value or None), known only inside that branch
    (branches.py). Any later assignment of the name, by whatever command (`read`, `for`, an array), sets the
    dict and so forgets both. `tokens`: each name's last `NAME=value` token, where an exported value is typed
    (shell_exports.py). `ifs`: the open `if`s, each [keyword, its condition's words, a scalar_branches frame once
    a branch assigns, whether an `else` was met, the forks made before it]; `forks`/`forked`: the worlds `if`s left (scalar_branches.py)."""

    __slots__ = ("partial", "scoped", "branches", "tokens", "ifs", "forks", "forked")

    def __init__(self) -> None:
        super().__init__()
        self.partial: dict[str, Token] = {}
        self.scoped: dict[str, tuple[tuple[int, ...], Optional[str], Optional[Token]]] = {}
        self.branches = Branches()
        self.tokens: dict[str, Token] = {}
        self.ifs: list[list] = []
        self.forks: list = []
        self.forked: dict[str, object] = {}

    def __setitem__(self, name: str, value: Optional[str]) -> None:
        self.partial.pop(name, None)
        self.scoped.pop(name, None)
        if self.forked and name in self.forked:  # assigned anew: no branch's value holds any longer
            from .scalar_branches import unfork
            unfork(name, self)
        super().__setitem__(name, value)

    def known(self, name: str) -> tuple[Optional[str], Optional[Token]]:
        """(value, partial value) of a name the script assigns, as the command being read sees them."""
        value = self.get(name)
        if value is not None:
            return value, None
        scoped = self.scoped.get(name)
        if scoped is not None and self.branches.sees(scoped[0]):
            return scoped[1], scoped[2]
        return None, self.partial.get(name)


def assigned(local: Locals, name: str, token: Token, unsure: bool, conditional: bool) -> None:
    """Record `NAME=value` (`token`, the whole word): its value, or None and the value as typed when it has
    unknown parts. An assignment that may not run (`unsure`) is unknown as a whole, but inside the `if` branch
    it is made in when it is not itself `conditional` (after `&&`/`||`)."""
    unresolved = token.unresolved  # one pass over the references: a long partial value holds many
    unknown = unresolved or MARK in token.text  # MARK: an unknown reference an `eval` string holds
    value = None if unknown else token.text.split("=", 1)[1]
    where = local.branches.where() if unsure and not conditional else None
    rest = _appended(local, name, token) if unsure and where is None else None
    if where is not None and local.ifs:  # one of the values it may hold after the `fi` (scalar_branches.py)
        from .scalar_branches import record
        record(name, local)  # before the assignment: what the name held before the `if`
    local[name] = None if unsure else value
    local.tokens[name] = token
    partial = _partial(token, unresolved) if unresolved and MARK not in token.text else None
    if where is not None:
        local.scoped[name] = (where, value, partial)
    elif partial is not None and not unsure:
        local.partial[name] = partial
    elif rest is not None:
        local.partial[name] = rest


def _appended(local: Locals, name: str, token: Token) -> Optional[Token]:
    """`CMD="$CMD --flag $x"` (or `CMD+=...`) in a loop or after `&&`: it may run any number of times, so the value
    is the one from before it (known, or partly known) and then an unknown rest, `$CMD` itself, where the loop
    types what it appends; as an array appended to there (shellarrays.py). None when the value does not begin
    with the variable's own (`CMD="vllm $CMD"`), or nothing of it was known."""
    if "=" not in token.text:
        return None
    before, partial = local.known(name)
    if before is None and partial is None:
        return None
    own = next((r for r in token.refs if r.name == name and r.style == "shell"), None)
    head = before if before is not None else partial.text  # type: ignore[union-attr]
    cut = token.text.index("=") + 1
    value = token.text[cut:]
    n = len(head)
    typed_at = token.starts[cut:cut + n]
    if own is None or not head or not value.startswith(head) or typed_at != (
            (own.start,) * n if before is not None else partial.starts):  # type: ignore[union-attr]
        return None
    if n == len(value):
        return None  # it appends nothing
    at, to = token.starts[cut + n], max(token.ends[cut + n:])
    spacer = " " if value[n] in " \t\n" else ""  # glued (`CMD="$CMD$x"`): the last word is not known either
    from .array_rests import valued_flags  # a flag it appends with a value: that value is not known either

    flags = valued_flags(_pieces(token, cut + n)[0 if spacer else 1:], name)
    text = "".join(" " + t.text for t in flags) + spacer + "${" + name + "}"
    return Token(head + text, token.start, token.end,
                 typed_at + _joined(flags, "starts") + (at,) * (len(spacer) + len(name) + 3),
                 token.ends[cut:cut + n] + _joined(flags, "ends") + (to,) * (len(spacer) + len(name) + 3),
                 (partial.refs if partial is not None else ()) +  # type: ignore[union-attr]
                 tuple(r for t in flags for r in t.refs) +
                 (VarRef(name, "shell", at, to, None, None, token.item, "set"),), token.item)


def _pieces(token: Token, begin: int) -> list[Token]:
    """The blank-separated words of `token.text[begin:]`, each where it is typed, with its references."""
    out, k, text = [], begin, token.text
    while k < len(text):
        if text[k] in " \t\n":
            k += 1
            continue
        end = k
        while end < len(text) and text[end] not in " \t\n":
            end += 1
        starts, ends = token.starts[k:end], token.ends[k:end]
        low, high = min(starts), max(ends)  # once a word, not once a reference (quadratic in a long append)
        out.append(Token(text[k:end], low, high, starts, ends,
                         tuple(r for r in token.refs if r.start < high and r.end > low), token.item))
        k = end
    return out


def _joined(flags: list[Token], side: str) -> tuple[int, ...]:
    """The offsets of `" " + t.text` for each of `flags`, the blank at the word's start."""
    return tuple(x for t in flags for x in (t.start,) + getattr(t, side))


def _partial(token: Token, unknown: tuple) -> Optional[Token]:
    """The value of a `NAME=value` token with unknown parts (`unknown`, its unresolved references) as typed, or None
    when nothing of it is known (`CMD=$(cat cmd.txt)`, `CMD=$1`)."""
    if "=" not in token.text:
        return None
    cut = token.text.index("=") + 1
    starts, ends = token.starts[cut:], token.ends[cut:]
    if not starts:
        return None
    if len(unknown) == 1 and min(starts) >= unknown[0].start and max(ends) <= unknown[0].end:
        # every character inside the one reference: the value is that reference alone, unless the places say
        # nothing (a script another runs is located at the caller's script word, engines/script_calls.py), where
        # the text tells: an unknown reference is kept as typed, so `${HOME}/models/NAME` has a known rest
        from .expansion_spans import outside  # the expansions a value holds as typed, to their own closing

        if len(set(starts)) > 1 or not outside(token.text[cut:]):
            return None
    return Token(token.text[cut:], token.start, token.end, starts, ends, token.refs, token.item)


def command_word(head: Sequence[Token], words: Sequence[Word], raw_tokens: Sequence[Sequence[Token]],
                 local: Locals) -> Optional[Word]:
    """The word in a command's first place (`head`: its unexpanded tokens, prefixes stripped) when it is one
    `$NAME` / `${NAME}` of a variable with a partly known value; None otherwise. Quoted, `"$L"` is that value as
    one word: `L="$HOME/build/bin/llama-server"; exec "$L" ...` runs the binary the path's last segment names,
    whatever the unknown directory before it is, as `exec $L ...` does (sweep 43)."""
    if not head or not local.partial:
        return None
    word = next((w for w, ts in zip(words, raw_tokens) if ts and ts[0] is head[0]), None)
    if word is None or len(word.parts) != 1:
        return None
    part = word.parts[0]
    return word if partial_value(part, local, quoted=True) is not None else None


def partial_value(part: Part, local: Locals, quoted: bool = False) -> Optional[Token]:
    """The partly known value `part` (a plain reference, unquoted unless `quoted` may be) expands to, or None."""
    if part.kind != "var" or part.style != "shell" or (part.quoted and not quoted) or len(part.runs) != 1 \
            or part.runs[0][0] not in ("$" + part.name, "${" + part.name + "}"):  # not `${CMD%% *}`, `${CMD:-x}`
        return None
    return local.known(part.name)[1] if part.name in local else None


def assignment_words(words: Sequence[Word], raw_tokens: Sequence[Sequence[Token]]) -> frozenset:
    """The ids of a command's words that assign a variable (`NAME=value` before its program, or after `export`,
    `local`, `declare`, ...): there a partly known variable expands to its value as typed, so that
    `CMD="vllm serve $MODEL"; CMD="$CMD --max-model-len 8192"; eval $CMD` keeps the words the first line types
    (bash expands `$CMD` in the value like any other; the value read as unknown as a whole dropped the launch:
    sweep cli25)."""
    found = []
    declaring, leading = False, True
    for word, tokens in zip(words, raw_tokens):
        text = tokens[0].text if len(tokens) == 1 else ""
        if leading and text in LEADING_KEYWORDS:
            continue  # `then CMD="$CMD --flag"; fi` on the `if`'s line: the branch's assignment
        if leading and text in _DECLARES:
            declaring = True
        elif ASSIGN.match(text):
            found.append(id(word))
        elif not declaring:
            break
        leading = False
    return frozenset(found)
