"""Data types shared by the shell splitter, the detector and the parser.

Every token keeps where it came from in the caller's string, so that a finding
can point at the exact characters a user typed, even through quotes, escapes,
`sh -c "..."` wrappers and variable expansion.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..records import field, record

# A resolver maps a variable name to its value, or None when the caller does
# not know it. It is never asked to guess.
Resolver = Callable[[str], Optional[str]]
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash", "ksh"})


@record(frozen=True)
class VarRef:
    """One variable reference found in the source text.

    style: "k8s" for Kubernetes `$(NAME)`, "shell" for `$NAME`/`${NAME}`,
    "command" for command substitution `$(...)`/backticks (never resolvable).
    """

    name: str
    style: str
    start: int
    end: int
    value: Optional[str] = None
    default: Optional[str] = None  # the `${X:-default}` text, recorded not applied
    item: Optional[int] = None  # list form: index of the list item holding it
    # why an unknown shell variable is unknown where it is used: "set" (the script set it before to a value it
    # does not hold: `read X`, `X=$(cmd)`), "sourced" (a file the script sourced before may set it), "branch" (an
    # exported variable set or exported inside a branch or loop: shell_exports.py), or ""
    why: str = ""
    # why "set": the value the script assigned, as typed, when only parts of it are unknown (`P=${ROOT}/models/X`:
    # command_strings.Locals.partial), else None; a model path's typed folder name is read from it (model_folder.py)
    typed: Optional["Token"] = None

    @property
    def resolved(self) -> bool:
        return self.value is not None


@record(frozen=True)
class Token:
    """One word after quote removal and expansion.

    start/end: span of the word in the source string (for list items: within
    the item). `starts[i]`/`ends[i]` give the source span of text[i], so any
    slice of the text (e.g. the value after `=`) maps back exactly.
    """

    text: str
    start: int
    end: int
    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    refs: tuple[VarRef, ...] = ()
    item: Optional[int] = None  # list form: index of the list item

    def span_of(self, a: int, b: int) -> tuple[int, int]:
        """Source span of text[a:b]; an empty slice maps to a zero-width span."""
        if not self.starts or a >= b or a >= len(self.text):
            pos = self.end if a >= len(self.text) else (self.starts[a] if self.starts else self.start)
            return (pos, pos)
        b = min(b, len(self.text))
        return (self.starts[a], self.ends[b - 1])

    @property
    def unresolved(self) -> tuple[VarRef, ...]:
        return tuple(r for r in self.refs if not r.resolved)


_TYPED: dict = {}  # length -> the offsets of text typed as is: (0, 1, ..., n - 1), (1, 2, ..., n)


def typed(text: str, item: Optional[int] = None) -> Token:
    """`text` as one token, character k at k (a list item or an argument without expansion). Tokens of
    the same length share their offset tuples (immutable): a manifest's arguments are mostly short."""
    n = len(text)
    offsets = _TYPED.get(n)
    if offsets is None:
        offsets = (tuple(range(n)), tuple(range(1, n + 1)))
        if n <= 1024:
            _TYPED[n] = offsets
    return (_make_token or token_maker())(text, 0, n, offsets[0], offsets[1], (), item)


_make_token: Optional[Callable[..., "Token"]] = None  # records.maker(Token): a Token without a class call


def token_maker() -> Callable[..., "Token"]:
    """Made at the first token (records.maker); Token(...)'s arguments."""
    global _make_token
    from ..records import maker

    _make_token = maker(Token)
    return _make_token


@record(frozen=True)
class EnvAssign:
    """`NAME=value` given before a command or as `export NAME=value`."""

    name: str
    token: Token

    @property
    def value(self) -> str:
        return self.token.text.split("=", 1)[1] if "=" in self.token.text else ""


@record(frozen=True)
class Command:
    """One simple command out of a chain (`a && b; c | d`)."""

    tokens: tuple[Token, ...]
    env: tuple[EnvAssign, ...] = ()
    wrappers: tuple[str, ...] = ()  # e.g. ("/bin/sh -c", "exec")
    image: Optional[Token] = None  # `docker run ... IMAGE sh -c SCRIPT`: the image whose shell runs this command
    # the shell's exported variables when it starts the command (shell_exports.py); `env` (its own prefixes) wins
    exported: tuple[EnvAssign, ...] = ()
    # the part of an `if` the script runs it in directly: (the `if`, its place there, a body?), branches.Branches.arm
    arm: Optional[tuple[int, int, bool]] = None
    # the `docker run` of `image` asks for an accelerator (docker_run.requests_accelerator): True, or the
    # docker_run.GpuRequest of its `--gpus` when that says how many GPUs the container gets
    image_gpus: object = False
    # the branch(es) of the `if`s whose values it was read with (scalar_branches.py): a launch of its own, so named
    branch: str = ""
    # run in the background (its and-or list ends in `&`): the script goes on without waiting for it to finish
    background: bool = False

    @property
    def argv(self) -> list[str]:
        return [t.text for t in self.tokens]


@record(frozen=True)
class SplitProblem:
    """Something odd in the input, reported instead of raised."""

    message: str
    start: int
    end: int
    item: Optional[int] = None


@record(frozen=True)
class SplitResult:
    commands: tuple[Command, ...] = ()
    refs: tuple[VarRef, ...] = ()  # every reference seen, resolved or not
    problems: tuple[SplitProblem, ...] = field(default_factory=tuple)
    unsure: frozenset = frozenset()  # variables set only inside a branch or loop (or after && / ||)

    @property
    def unresolved(self) -> tuple[VarRef, ...]:
        return tuple(r for r in self.refs if not r.resolved)
