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

import re
from itertools import chain
from typing import Callable, Optional

from .arith import arithmetic
from .command_strings import Locals, partial_value
from .gotemplate import lookup_key
from . import shellarrays, tokens
from .lex_words import Word
from .tokens import Resolver, SplitProblem, Token, VarRef

_POSITIONAL = frozenset("@*#123456789")  # a function call's arguments (shellfuncs.Positional)
_NULL_ERROR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):\?")  # `${A:?msg}` inside `$(( ... ))`
_BLANK = re.compile(r"[ \t\n]")  # where bash splits an unquoted expansion (the default IFS)


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
        self.unexported: frozenset = frozenset()  # the script's names an `sh -c` child does not get (container_scripts)
        # names whose held value the text being read may not see: a call's prefix (`A=x f`, `A=x eval ...`,
        # `A=x bash -c ...`) and, in an `sh -c` string, every name the outer script had (decided_tests.py)
        self.undecided: frozenset = frozenset()
        self.lone_test = False  # the `if`/`elif` being read is followed by its `then`: its one test command
        self.skippable = False  # the command being read may not run at all (after `&&`/`||`): branches.if_step
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
        # a bash script skips the rest of its top-level command after a failed readonly assignment (shell_readonly)
        self.discard = False
        self.source: Optional[str] = None  # the script's text, where positions index it (shell_readonly.discard_ends)
        self.bash = False  # a `#!` line names bash: `local NAME` is bash's, not dash's (shell_unset.py)
        self.written: set[str] = set()  # names a here-document body written to a file assigns (apart_state.py)
        self.integers: set[str] = set()  # names `declare -i` / `local -i` gave the integer attribute (arith_commands)
        self.assigning: Optional[list] = None  # the `${L:=d}` defaults the command being read assigns
        self.subshells, self.exited = 0, False  # `( )`s and jobs around the command; an `exit` ran (script_exits)
        # a `return` of the function being called may have run before; one surely ran; where each call's body
        # starts (script_exits.returned_here)
        self.returned, self.call_ended, self.return_marks = False, False, []
        self.null_error = False  # the command read expands `${X:?msg}` of an X the script set to "": the shell exits
        self.readonly: dict[str, bool] = {}  # names `readonly` marked: True, or False when it may have (shell_readonly.py)

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
    # the word's characters as segments (text, starts, ends, splittable, None or (item, start, end) for the text of
    # another list item), joined once: a value that grows by appends (`S+=" --flag"` over thousands of lines) is
    # copied at C speed, not a tuple per character per line (quadratic in Python before)
    segs: list[tuple] = []
    refs: list[VarRef] = []
    vanish = False  # `"${A[@]}"` of an empty array: no word at all
    carried: list[VarRef] = []  # an array element's own references, where the element is typed
    placed = False  # the word is a value typed elsewhere (a branch's assignment): the token is there too
    for part in word.parts:
        if part.kind == "lit" or not expand:
            segs.extend((text, starts, ends, False, None) for text, starts, ends in part.runs)
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
                    segs.append((" ", (start,), (end,), not (part.quoted and joined), None))
                # typed in another list item (`[sh, -c, SCRIPT, _, WORDS]`): each char says where (word_pieces.py)
                segs.append((element.text, element.starts, element.ends, not part.quoted,
                             None if element.item == ctx.item else (element.item, start, end)))
                carried.extend(element.refs)
            if not more:
                refs.append(VarRef(part.name, part.style, start, end, " ".join(t.text for t in elements), None,
                                   ctx.item))
                continue
            if elements:  # the unknown rest: the reference itself, a word of its own
                segs.append((" ", (start,), (end,), True, None))
        partial = partial_value(part, ctx.local, True) if command or partials else None
        if partial is not None:  # its words where they are typed, its unknown references with them
            ctx.refs.append(VarRef(part.name, part.style, start, end, None, None, ctx.item, "set"))
            segs.append((partial.text, partial.starts, partial.ends, not part.quoted, None))
            carried.extend(partial.refs)
            continue
        if part.kind == "cmd" and "<<" in part.name:  # `$(cat <<EOF ... EOF)`: the body (cat_heredoc.py)
            from .cat_heredoc import substituted
            body = substituted(part, ctx, expand_word)
            if body is not None:
                segs.append((body.text, body.starts, body.ends, not part.quoted, None))
                carried.extend(body.refs)
                continue
        if part.kind == "cmd" and "download" in part.name:  # `$(hf download REPO FILE)`: the path (hub_download.py)
            from .hub_download import downloaded_path
            fetched = downloaded_path(part, ctx, expand_word)
            if fetched is not None:
                segs.append((fetched.text, fetched.starts, fetched.ends, not part.quoted, None))
                continue
        name = lookup_key(part.name) if part.style == "go" else part.name
        value = ctx.lookup(name) if part.kind == "var" else arithmetic(part.name, ctx.lookup)
        if part.kind == "cmd" and part.name.startswith("$((") and ":?" in part.name:
            names = _NULL_ERROR.findall(part.name)  # (each `${` one of them: not `${B:-${A:?msg}}`, A maybe not run)
            if len(names) == part.name.count("${") and any(n in ctx.local and ctx.lookup(n) == "" for n in names):
                ctx.null_error = True  # `$(( ${A:?msg} + 1 ))` of an A set to "": bash expands it first, and exits
        typed = _default(part, ctx) if ctx.defaults and (
            value is None and part.name.split("[")[0] not in ctx.local or value == "" and colon_default(part)) \
            else None  # `A=""; ${A:-8192}` is 8192 (bash manual: ":" tests for a parameter that is null too)
        if typed is not None:
            value = typed[0]
            if getattr(ctx, "assigning", None) is not None:  # `${L:=8192}` assigns it too (default_assigns.py)
                from .default_assigns import note
                note(part, typed, start, end, ctx)
        elif value == "" and part.default and colon_default(part):  # `A=""; ${A:-$B}`: bash gives the default,
            value = None  # not read here (an unset $B, `$(cmd)`): not known, never the empty A (sweep p30)
            if getattr(ctx, "assigning", None) is not None:  # `A=""; : ${A:=$B}` assigns that unknown value to A
                from .default_assigns import note_unknown
                note_unknown(part, start, end, ctx)
        elif value == "" and part.kind == "var" and part.style == "shell" and part.default is None and \
                _runs_text(part).startswith(f"${{{part.name}:?"):
            # `A=""; ... ${A:?msg}`: bash writes msg and a non-interactive shell exits (bash manual, Shell Parameter
            # Expansion; POSIX 2.6.2): the command never runs, never with an empty word (shellwords.py). Only for an
            # A the script set: a "" the file's platform gives (SkyPilot's `envs: {A: ""}`, a placeholder that
            # `sky launch --env A=...` fills; a pod's env) may be another value at launch: not known, never an exit
            if part.name in ctx.local:
                ctx.null_error = True
            else:
                value = None
        why = "" if value is not None or part.style != "shell" else \
            ctx.positional.why if ctx.positional is not None and part.name in _POSITIONAL else \
            "set" if part.name in ctx.local else "option" if part.name in ctx.options else \
            "sourced" if ctx.sourced else "unexported" if part.name in ctx.unexported else ctx.outside
        # a variable the script set to a partly known value keeps that value as typed (model_folder.py reads it)
        held = partial_value(part, ctx.local, True) if why == "set" and part.name in ctx.local else None
        ref = VarRef(part.name, part.style, start, end, value, part.default, ctx.item, why, held)
        refs.append(ref)
        if typed is not None:  # the default's characters where they are typed
            segs.append((typed[0], typed[1], typed[2], not (part.quoted or typed[3]), None))
        elif value is None:  # keep the reference text itself, at its own positions
            segs.extend((text, starts, ends, False, None) for text, starts, ends in part.runs)
        elif ctx.typed and len(word.parts) == 1 and _typed(ctx.typed.get(name), value):
            # a branch's value, the whole word: where that branch assigns it (scalar_branches.py)
            typed_at, placed = ctx.typed[name], True
            segs.append((value, typed_at.starts, typed_at.ends, not part.quoted, None))
        else:
            segs.append((value, (start,) * len(value), (end,) * len(value), not part.quoted, None))
    ctx.refs.extend(refs)
    if any(seg[4] is not None for seg in segs):  # characters of another list item: one at a time (rare)
        from .word_pieces import per_char_tokens
        return per_char_tokens(segs, word, ctx.item, refs, carried, placed, assignment, vanish)
    return _tokens(segs, word, ctx.item, refs, carried, placed, assignment, vanish)


def _tokens(segs: list, word: Word, item: Optional[int], refs: list, carried: list, placed: bool,
            assignment: bool, vanish: bool) -> list[Token]:
    """The tokens of a word's segments (expand_word), split at the blanks of its splittable ones unless it is an
    assignment's value, each character where the segments place it."""
    text = "".join([seg[0] for seg in segs])
    if vanish and not text:
        return []
    starts, ends = _joined([seg[1] for seg in segs]), _joined([seg[2] for seg in segs])
    cuts: list[int] = [-1]  # the blanks it splits at, between the word's start and its end
    if not assignment:
        base = 0
        for seg in segs:
            if seg[3] and _BLANK.search(seg[0]):
                cuts.extend(base + m.start() for m in _BLANK.finditer(seg[0]))
            base += len(seg[0])
    cuts.append(len(text))
    pieces = len(cuts) - 1
    keep_empty = word.had_quotes and pieces == 1
    near = None
    if len(carried) > 16 and pieces > 16:  # `"${A[@]}"` of many elements
        from .word_pieces import Near
        near = Near(carried)
    out = []
    for a, b in zip(cuts, cuts[1:]):
        a += 1
        if a == b and not keep_empty:
            continue
        piece_starts, piece_ends = (starts, ends) if pieces == 1 else (starts[a:b], ends[a:b])
        if pieces == 1 and not placed:  # the usual case: the token is the word as typed
            start, end = word.span()
        else:
            start, end = min(piece_starts), max(piece_ends)
        mine = tuple(r for r in refs if r.style == "go-if" or r.start < end and r.end > start) or ()
        if carried and a < b:  # an element's references are where the element is typed
            low, high = min(piece_starts), max(piece_ends)
            mine += near.overlapping(low, high) if near is not None else \
                tuple(r for r in carried if r.start < high and r.end > low)
        out.append(Token(text[a:b], start, end, piece_starts, piece_ends, mine, item))
    return out


def _joined(offsets: list) -> tuple:
    """The segments' offsets as one tuple: a few tuples added (a copy at C speed, the usual word: `S="$S --flag"`
    holds its long value in one), many chained."""
    if len(offsets) > 8 or not all(type(o) is tuple for o in offsets):
        return tuple(chain.from_iterable(offsets))
    out = ()
    for o in offsets:
        out += o
    return out


def _typed(token: Optional[Token], value: str) -> bool:
    return token is not None and token.text == value and len(token.starts) == len(value) > 0


def _runs_text(part) -> str:
    return "".join(run[0] for run in part.runs)


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

