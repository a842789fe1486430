"""Word expansion for the shell splitter: the per-split state and how one word becomes tokens.

`SplitContext` is what one split knows (the resolver, script-local assignments, arrays, the
references met so far) and `expand_word` cooks a lexed word into tokens with it: variables,
arithmetic, Go template actions, array elements and `${NAME:-default}` defaults, each character
keeping the position it is typed at, then field splitting. This is apart from shellwords.py,
which walks the lexed items into commands, because the other readers of words use it too:
exec-form lists (execform.py) keep their state in a SplitContext, and here-documents and bash
arrays are handed `expand_word`.
"""
from __future__ import annotations

from bisect import bisect_left
from itertools import chain, repeat
from typing import Callable, Optional

from .arith import arithmetic
from .command_strings import Locals, partial_value
from .gotemplate import lookup_key
from . import shellarrays, tokens
from .lexer import Word
from .tokens import Resolver, SplitProblem, Token, VarRef

_POSITIONAL = frozenset("@*#123456789")  # a function call's arguments (shellfuncs.Positional)


def no_resolver(_name: str) -> Optional[str]:
    return None


class SplitContext:
    """Per-split state: resolver, script-local assignments, collected refs."""

    def __init__(self, resolver: Optional[Resolver], item: Optional[int], go: bool = False,
                 defaults: bool = False) -> None:
        self.resolver = resolver or no_resolver
        self.go = go  # Go template actions are references (see gotemplate.py)
        self.defaults = defaults  # `${X:-default}` of a variable set neither here nor by the resolver: the default
        self.script = defaults  # a launcher script's own text (a shell reads it), whatever `source` does to defaults
        self.sourced = False  # a `source FILE` was met (shell_commands.no_command)
        self.outside = ""  # why a name the text never sets is not known, where its shell is not the script's (tmux.py)
        # names whose held value the text being read may not see: a call's prefix (`A=x f`, `A=x eval ...`,
        # `A=x bash -c ...`) and, in an `sh -c` string, every name the outer script had (decided_tests.py)
        self.undecided: frozenset = frozenset()
        self.lone_test = False  # the `if`/`elif` being read is followed by its `then`: its one test command
        self.local = Locals()  # name -> value (None: not known), and partly known command strings
        self.refs: list[VarRef] = []
        self.problems: list[SplitProblem] = []
        self.item = item
        # Inside `if`/`while`/`for`/`case` (or after `&&`/`||`) an assignment may or may not run, or
        # run many times: the variable's value is not known there (a loop's TP=$((TP*2)), an else).
        self.flow = 0
        self.argloop: Optional[int] = None  # the `flow` depth of an option-parsing loop being read (arg_loops.py)
        self.options: set[str] = set()  # names such a loop sets from the caller's words only
        self.conditional = False
        self.unsure: set[str] = set()
        # bash arrays (engines/shellarrays.py): (elements, whether unknown ones may follow), None when not known
        self.arrays: dict[str, object] = {}
        self.array_ifs: list = []  # the open `if`s, each an array_branches frame once it sets an array
        self.typed: dict[str, Token] = {}  # a branch's value read (scalar_branches.fork_read), where it is typed
        # shell functions (shellfuncs.py): those defined so far, and while a call is read its arguments, the
        # functions being called, and each call's `local` names with their values before it
        self.functions: dict = {}
        self.positional = None
        self.calling: list[str] = []
        self.frames: list[dict] = []
        self.sourcer: Optional[Callable[[str], Optional[str]]] = None  # a sourced file's text, by its path
        self.sources_read = 0
        # exported names (shell_exports.py): True, the branch it is exported in, or False (may be); `set -a`
        self.exports: dict[str, object] = {}
        self.allexport: Optional[bool] = False
        self.removed: set[str] = set()  # names `unset` (or a function's `local NAME`) took away: shell_unset.py
        self.bash = False  # a `#!` line names bash: `local NAME` is bash's, not dash's (shell_unset.py)

    def lookup(self, name: str) -> Optional[str]:
        if name in self.local:
            value = self.local[name]
            return value if value is not None or not self.local.scoped else self.local.known(name)[0]
        if name in self.removed:  # `unset NAME`: not the environment's either (shell_unset.py)
            return None
        try:
            value = self.resolver(name)
        except Exception:  # a caller's resolver must not crash the linter
            value = None
        return value if isinstance(value, str) else None


class Unexpanded:
    """What `expand_word(..., expand=False)` reads of its context: the list item the words are in."""

    __slots__ = ("item",)

    def __init__(self, item: Optional[int]) -> None:
        self.item = item



def expand_word(word: Word, ctx: SplitContext, expand: bool = True, command: bool = False,
                 partials: bool = False, assignment: bool = False) -> list[Token]:
    """Cook one word into one or more tokens (unquoted expansions field-split). A partly known command string
    (command_strings.py) gives its words where typed when the word is a command's first (`command`), or is one
    another reading parses again (`partials`: an `sh -c` script, `eval`'s words). A variable assignment's word
    (`assignment`: `X=$Y`) is never split: bash expands an assignment's value without word splitting (bash manual,
    Shell Parameters)."""
    if not expand or all(part.kind == "lit" for part in word.parts):
        # No expansion, so no field splitting: the token is the word as typed (the general
        # path below gives the same, one tuple per character slower). A `{{ if }}` the word is inside
        # was typed elsewhere.
        runs = [run for part in word.parts if part.style != "go-if" for run in part.runs]
        if not runs and not word.had_quotes:
            return []
        start, end = word.span()
        if len(runs) == 1:  # most words: one run of literals
            text, starts, ends = runs[0]
            return [(tokens._make_token or tokens.token_maker())(text, start, end, starts, ends, (), ctx.item)]
        return [Token("".join([run[0] for run in runs]), start, end,
                      tuple(chain.from_iterable([run[1] for run in runs])),
                      tuple(chain.from_iterable([run[2] for run in runs])), (), ctx.item)]
    chars: list[tuple[str, int, int, bool]] = []  # (char, start, end, splittable)
    refs: list[VarRef] = []
    vanish = False  # `"${A[@]}"` of an empty array: no word at all
    carried: list[VarRef] = []  # an array element's own references, where the element is typed
    placed = False  # the word is a value typed elsewhere (a branch's assignment): the token is there too
    for part in word.parts:
        if part.kind == "lit" or not expand:
            for text, starts, ends in part.runs:
                chars.extend(zip(text, starts, ends, repeat(False)))
            continue
        start = min(chain.from_iterable([run[1] for run in part.runs]))
        end = max(chain.from_iterable([run[2] for run in part.runs]))
        if part.style == "go-if":  # no text of its own: the word is there only when the condition holds
            refs.append(VarRef(part.name, part.style, start, end, None, None, ctx.item))
            continue
        array = shellarrays.lookup(part.name, ctx) if part.style == "shell" and (
            "[" in part.name or part.name in ctx.arrays) else None  # `$A` is `${A[0]}`
        if ctx.positional is not None and part.style == "shell" and part.name in _POSITIONAL:  # inside a call
            array = ctx.positional.lookup(part, start, end)
        if array is not None:  # each element where it is typed; `"${A[@]}"` still one word per element
            elements, joined, more = array
            vanish = vanish or (part.quoted and not elements and not joined and not more)
            for k, element in enumerate(elements):
                if k:
                    chars.append((" ", start, end, not (part.quoted and joined)))
                if element.item == ctx.item:
                    chars.extend(zip(element.text, element.starts, element.ends, repeat(not part.quoted)))
                else:  # typed in another list item (`[sh, -c, SCRIPT, _, WORDS]`): each char says where (_placed)
                    chars.extend(zip(element.text, element.starts, element.ends, repeat(not part.quoted),
                                     repeat((element.item, start, end))))
                carried.extend(element.refs)
            if not more:
                refs.append(VarRef(part.name, part.style, start, end, " ".join(t.text for t in elements), None,
                                   ctx.item))
                continue
            if elements:  # the unknown rest: the reference itself, a word of its own
                chars.append((" ", start, end, True))
        partial = partial_value(part, ctx.local, True) if command or partials else None
        if partial is not None:  # its words where they are typed, its unknown references with them
            ctx.refs.append(VarRef(part.name, part.style, start, end, None, None, ctx.item, "set"))
            chars.extend(zip(partial.text, partial.starts, partial.ends, repeat(not part.quoted)))
            carried.extend(partial.refs)
            continue
        if part.kind == "cmd" and "<<" in part.name:  # `$(cat <<EOF ... EOF)`: the body (cat_heredoc.py)
            from .cat_heredoc import substituted
            body = substituted(part, ctx, expand_word)
            if body is not None:
                chars.extend(zip(body.text, body.starts, body.ends, repeat(not part.quoted)))
                carried.extend(body.refs)
                continue
        name = lookup_key(part.name) if part.style == "go" else part.name
        value = ctx.lookup(name) if part.kind == "var" else arithmetic(part.name, ctx.lookup)
        typed = _default(part, ctx) if ctx.defaults and (
            value is None and part.name.split("[")[0] not in ctx.local or value == "" and colon_default(part)) \
            else None  # `A=""; ${A:-8192}` is 8192 (bash manual: ":" tests for a parameter that is null too)
        if typed is not None:
            value = typed[0]
        why = "" if value is not None or part.style != "shell" else \
            ctx.positional.why if ctx.positional is not None and part.name in _POSITIONAL else \
            "set" if part.name in ctx.local else "option" if part.name in ctx.options else \
            "sourced" if ctx.sourced else ctx.outside
        # a variable the script set to a partly known value keeps that value as typed (model_folder.py reads it)
        held = partial_value(part, ctx.local, True) if why == "set" and part.name in ctx.local else None
        ref = VarRef(part.name, part.style, start, end, value, part.default, ctx.item, why, held)
        refs.append(ref)
        if typed is not None:  # the default's characters where they are typed
            chars.extend((c, a, b, not (part.quoted or typed[3])) for c, a, b in zip(*typed[:3]))
        elif value is None:  # keep the reference text itself, at its own positions
            for text, starts, ends in part.runs:
                chars.extend(zip(text, starts, ends, repeat(False)))
        elif ctx.typed and len(word.parts) == 1 and _typed(ctx.typed.get(name), value):
            # a branch's value, the whole word: where that branch assigns it (scalar_branches.py)
            typed_at, placed = ctx.typed[name], True
            chars.extend(zip(value, typed_at.starts, typed_at.ends, repeat(not part.quoted)))
        else:
            chars.extend((c, start, end, not part.quoted) for c in value)
    ctx.refs.extend(refs)
    if vanish and not chars:
        return []
    pieces: list[list[tuple[str, int, int, bool]]] = [[]]
    for ch in chars:
        if ch[3] and ch[0] in " \t\n" and not assignment:
            pieces.append([])
        else:
            pieces[-1].append(ch)
    keep_empty = word.had_quotes and len(pieces) == 1
    near = _Near(carried) if len(carried) > 16 and len(pieces) > 16 else None  # `"${A[@]}"` of many elements
    out = []
    for piece in pieces:
        if not piece and not keep_empty:
            continue
        item = ctx.item
        if any(len(c) > 4 for c in piece):
            item, piece = _placed(piece, item)
            if item != ctx.item:  # a word wholly of another item: there, where it is typed
                out.append(Token("".join(c[0] for c in piece), piece[0][1], piece[-1][2],
                                 tuple(c[1] for c in piece), tuple(c[2] for c in piece),
                                 tuple(r for r in carried if r.item == item), item))
                continue
        if len(pieces) == 1 and not placed:  # the usual case: the token is the word as typed
            start, end = word.span()
        else:
            start, end = min(c[1] for c in piece), max(c[2] for c in piece)
        mine = tuple(r for r in refs if r.style == "go-if" or r.start < end and r.end > start) or ()
        if carried and piece:  # an element's references are where the element is typed
            low, high = min(c[1] for c in piece), max(c[2] for c in piece)
            mine += near.overlapping(low, high) if near is not None else \
                tuple(r for r in carried if r.start < high and r.end > low)
        out.append(Token("".join(c[0] for c in piece), start, end,
                         tuple(c[1] for c in piece), tuple(c[2] for c in piece), mine, ctx.item))
    return out


class _Near:
    """The references among many that overlap a span, in their order, without reading them all for each word (a
    loop that appends thousands of flags gives as many elements, each with its references: quadratic before)."""

    __slots__ = ("refs", "order", "starts", "longest")

    def __init__(self, refs: list) -> None:
        self.refs = refs
        self.order = sorted(range(len(refs)), key=lambda k: refs[k].start)
        self.starts = [refs[k].start for k in self.order]
        self.longest = max(r.end - r.start for r in refs)

    def overlapping(self, low: int, high: int) -> tuple:
        first, last = bisect_left(self.starts, low - self.longest), bisect_left(self.starts, high)
        found = sorted(k for k in self.order[first:last] if self.refs[k].end > low)
        return tuple(self.refs[k] for k in found)


def _typed(token: Optional[Token], value: str) -> bool:
    return token is not None and token.text == value and len(token.starts) == len(value) > 0


def _placed(piece: list, item: Optional[int]) -> tuple[Optional[int], list]:
    """(item, chars) of a word with characters of another list item (5-tuples: their item and the reference's
    span): all of one item, that item; mixed with this item's (`--max-model-len=$1`), each foreign character at
    the reference that gave it, as a token has only one item."""
    items = {c[4][0] if len(c) > 4 else item for c in piece}
    if len(items) == 1:
        return items.pop(), piece
    return item, [(c[0], c[4][1], c[4][2], c[3]) if len(c) > 4 else c for c in piece]


def colon_default(part) -> bool:
    """Is `part` `${NAME:-default}` or `${NAME:=default}`, whose default a null NAME takes too?"""
    raw = part.runs[0][0] if part.kind == "var" and part.default is not None and len(part.runs) == 1 else ""
    begin = len(raw) - 1 - len(part.default or "")
    return begin >= 2 and raw[begin - 2:begin] in (":-", ":=")


def _default(part, ctx: SplitContext) -> Optional[tuple[str, tuple[int, ...], tuple[int, ...], bool]]:
    """(text, starts, ends, quoted) of the default in `${NAME:-default}` (or `-`, `:=`, `=`) when it is
    plain text, at its own positions, or a variable whose value is known (nested_defaults.py); None for an empty
    default or one that expands or escapes anything else (`${A:-$(cat f)}`, `${A:-x$B}`): not read here."""
    default = part.default
    if not default or part.kind != "var" or len(part.runs) != 1:
        return None
    raw, starts, ends = part.runs[0]
    begin = len(raw) - 1 - len(default)
    if begin < 0 or raw[begin:-1] != default or not raw.endswith("}"):
        return None
    if default.lstrip('"').startswith("$"):  # `${A:-${B:-8192}}`: the inner one's value (nested_defaults.py)
        from .nested_defaults import nested_default
        return nested_default(part, default, begin, ctx)
    quoted = len(default) >= 2 and default[0] == default[-1] and default[0] in "'\""
    if quoted:
        default, begin = default[1:-1], begin + 1
    if not default or any(c in default for c in "$`\\'\""):
        return None
    end = begin + len(default)
    return default, starts[begin:end], ends[begin:end], quoted

