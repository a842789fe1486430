"""An array set differently in the branches of an `if`, then used after the `fi`:

    if [[ $SECURE == 1 ]]; then CMD=(/opt/secure-launch.py); else CMD=(python -m sglang.launch_server); fi
    CMD+=(--model-path "$MODEL" --context-length "$CTX")
    exec "${CMD[@]}"

Bash runs one branch's list of commands (bash manual, Conditional Constructs,
gnu.org/software/bash/manual/html_node/Conditional-Constructs.html), so after the `fi` the array holds the value
one branch left, or, when no `else` runs or a branch does not set it, the value it held before the `if`. Each is
kept (shellarrays.Alternatives): a later `CMD+=(...)` appends to each, and a command that expands `"${CMD[@]}"`
is read once per value (`forks`), so the branch that makes an engine command gives that launch, each branch
that does one of its own, and one that makes none (or a value not known) gives nothing. Inside its branch the
array is known as assigned, as a scalar is (branches.py). Not in a loop, a `case` or after `&&`: there it is
unknown as a whole, as before.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from .shellarrays import Alternatives, first_element

if TYPE_CHECKING:
    from .lex_words import Word
    from .shellwords import SplitContext
    from .tokens import Command

_UNSET = object()
MAX_OPTIONS = 8  # more values than this (a long `elif` chain times nested `if`s) is not followed: unknown


class _If:
    """One open `if`: what each array it sets held before it, and each finished branch's values."""

    __slots__ = ("before", "ends", "current", "has_else")

    def __init__(self) -> None:
        self.before: dict[str, tuple[object, object]] = {}  # name -> (array value or _UNSET, `$NAME` or _UNSET)
        self.ends: list[dict[str, object]] = []
        self.current: set[str] = set()
        self.has_else = False

    def record(self, name: str, ctx: "SplitContext") -> None:
        if name not in self.before:
            self.before[name] = (ctx.arrays.get(name, _UNSET), ctx.local.get(name, _UNSET))
        self.current.add(name)


def record(name: str, ctx: "SplitContext") -> None:
    """An assignment of array `name` in the innermost open `if`'s current branch."""
    if ctx.array_ifs[-1] is None:
        ctx.array_ifs[-1] = _If()
    ctx.array_ifs[-1].record(name, ctx)


def step(first: str, ctx: "SplitContext") -> None:
    """`elif`/`else` end a branch of the innermost `if`, `fi` the `if` itself (its frame is set)."""
    frame: _If = ctx.array_ifs[-1]
    _end_branch(frame, ctx)
    if first == "else":
        frame.has_else = True
    if first != "fi":
        return
    ctx.array_ifs.pop()
    for name in {n for end in frame.ends for n in end}:
        options = [end[name] for end in frame.ends if name in end]
        if not frame.has_else or len(options) < len(frame.ends):
            before = frame.before[name][0]
            options.append(None if before is _UNSET else before)  # no branch may have set it
        # a nested `if` in a branch left several values: each is one this `if` may leave (not a value of values)
        options = [o for option in options for o in (option.options if isinstance(option, Alternatives)
                                                      else (option,))]
        if ctx.array_ifs:  # an enclosing `if`'s branch set it too (its value before is the one restored now)
            record(name, ctx)
        unique = [o for k, o in enumerate(options) if all(o is not p and o != p for p in options[:k])]
        value = unique[0] if len(unique) == 1 else Alternatives(unique) if len(unique) <= MAX_OPTIONS else None
        ctx.arrays[name] = value
        firsts = {first_element(o) for o in unique} if value is not None else {None}
        ctx.local[name] = firsts.pop() if len(firsts) == 1 else None
        if None in unique or value is None:
            ctx.unsure.add(name)


def _end_branch(frame: _If, ctx: "SplitContext") -> None:
    """Keep what the branch left in each array it set, and give them back their values from before the `if`
    (the next branch starts from those)."""
    frame.ends.append({name: ctx.arrays.get(name) for name in frame.current})
    for name in frame.current:
        array, scalar = frame.before[name]
        if array is _UNSET:
            ctx.arrays.pop(name, None)
        else:
            ctx.arrays[name] = array
        if scalar is _UNSET:
            dict.pop(ctx.local, name, None)
        else:
            ctx.local[name] = scalar  # type: ignore[assignment]
    frame.current = set()


def forks(words: "list[Word]", ctx: "SplitContext",
          read: Callable[[], "list[Command]"]) -> "Optional[list[Command]]":
    """The commands of `words` read once per value of the first array with several that they expand
    (`"${CMD[@]}"`), or None when they expand none (the caller reads them once)."""
    name = next((part.name.split("[", 1)[0] for word in words for part in word.parts if part.kind == "var"
                 and part.style == "shell" and "[" in part.name
                 and isinstance(ctx.arrays.get(part.name.split("[", 1)[0]), Alternatives)), None)
    if name is None:
        return None
    held = ctx.arrays[name]
    commands: list = []
    for option in held.options:  # type: ignore[union-attr]
        ctx.arrays[name] = option
        commands.extend(read())
        if ctx.arrays.get(name) is not option:  # the command set the array itself: that value stays
            return commands
    ctx.arrays[name] = held
    return commands
