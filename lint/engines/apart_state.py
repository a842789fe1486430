"""What a command bash runs in another process assigns stays there: a here-document body fed to a shell, and a
command or compound command that ends in `&` or stands in a pipeline.

Bash's manual (Pipelines): "Each command in a multi-command pipeline [...] is executed in its own subshell" (unless
`lastpipe` is set, and then only the last one runs in the current shell); (Lists of Commands): "If a command is
terminated by the control operator ‘&’, the shell executes the command asynchronously in a subshell"; a `&`
ends the whole and-or list before it (`A && B &` is one background job). A here-document fed to `bash`, `sh`,
`ssh HOST`, `sbatch`, or written to a script run later, is read by another process whose variables are its own.

Checked with bash 5.2.15: `L=4096; bash <<EOT` / `L=5` / `EOT` (and `sh <<EOF`, `cat <<EOF | bash`, `bash -s
<<EOF`), then `echo $L`, prints 4096; so do `L=4096; { L=5; } & wait; echo $L`, `L=4096; L=5 & wait; echo $L`,
`L=4096; { L=5; } | cat; echo $L`, `L=4096; echo x | while read a; do L=5; done; echo $L`. The commands inside
still run with the values they set (`{ L=5; vllm serve m --max-model-len $L; } &` passes 5): they are read as
before, and only the state is put back where the process ends, with subshells.py's marks (so only the names its
words spell are saved, unless it runs `eval`, `source` or a shell).
"""
from __future__ import annotations

from typing import Optional, Sequence

from ctxlint.lazyre import lazy_compile

from .lex_words import Word
from .shell_commands import literal
from .subshells import _IDENT, _OPAQUE, Mark, _spelled, passed

_DOT = lazy_compile(r"(?:^|[\s;&|(])\.\s")  # `. file`: sources a file whose words may name anything
_PIPES = frozenset({"|", "|&"})
_LOGIC = frozenset({"&&", "||"})
_OPENS = frozenset({"{", "if", "while", "until", "for", "select", "case"})
_CLOSES = frozenset({"}", "fi", "done", "esac"})
# a group that starts with one of these also steps an `if`, a loop or a `case` of the script: its state is not
# the job's own (an `else`'s values put back), so a job on such a line is left as it was read before
_KEYWORDS = _OPENS | _CLOSES | frozenset({"then", "do", "else", "elif", "!", "in"})


def _marks(names: Optional[set]) -> tuple[Mark, Mark]:
    opening, closing = Mark(True), Mark(False)
    opening.names, closing.pair = names, opening
    return opening, closing


def body_marks(text: str) -> tuple[Mark, Mark]:
    """The (open, close) marks around a here-document body read as another process's script: the names it spells
    are saved before it is read and put back after (every name when it may source, eval or run a shell)."""
    names = set(_IDENT.findall(text))
    return _marks(None if names & _OPAQUE or _DOT.search(text) else names)


# `NAME=`, `NAME+=`, `NAME[k]=` at a command's start, or after export/readonly/declare/typeset/local and options
_ASSIGNS = lazy_compile(r"(?:^|[;&|(){}\s])(?:(?:export|readonly|declare|typeset|local)\s+(?:-\w+\s+)*)?"
                        r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=")
_SOURCES = lazy_compile(r"(?:^|[;&|(){}\s])(?:source|\.)\s")


def maybe_sourced(text: str, ctx) -> None:
    """After a body written to a file (`cat > env.sh <<EOV`): a script that sources a file may source this one
    (`source env.sh`: bash 5.2.15 then has the body's values), so what the body assigns is unknown after it, never
    the value before it; a script that sources nothing keeps the value before it (the file is run, if at all, by
    another process)."""
    if ctx.source is not None and not _SOURCES.search(ctx.source):
        return
    for name in set(_ASSIGNS.findall(text)):
        ctx.local[name] = None
        ctx.unsure.add(name)
        ctx.written.add(name)  # and again at each `source`, which may read the file (sourced below)


def sourced(ctx) -> None:
    """At `source FILE` or `. FILE`: what a body written to a file before assigns is unknown again (`L=77` between
    the write and the `source r.sh` does not hold: bash 5.2.15 has the body's 31)."""
    for name in ctx.written:
        ctx.local[name] = None
        ctx.unsure.add(name)


class ApartJobs:
    """The group ranges of one list of commands that bash runs in a process of its own (`&`, a pipeline's
    elements), opened where their first group's words are read and closed before the first group after them."""

    def __init__(self, ends: dict, groups: Sequence, lastpipe: bool) -> None:
        from .shell_commands import _compounds

        spans = _compounds(groups)
        inner: dict[int, list[int]] = {}  # first group -> the last group of each job that starts there
        levels = _levels(groups)
        starts = {0: 0}  # nesting level -> where the and-or list being read at that level starts
        for index in sorted(ends):
            op = ends[index]
            level = levels[index]
            start = starts.get(level, 0)
            while start < index and not isinstance(groups[start][0], (list, Mark)):
                start += 1  # a here-document body (or a function) read after the command before it
            if op in _PIPES:
                left = spans.get(index) if _first(groups, index) in _CLOSES else None
                right = spans.get(index + 1) if _first(groups, index + 1) in _OPENS else None
                for span, at in ((left, index), (right, index + 1)):
                    last = span[-1] if span else at
                    first = span[0] if span else at
                    if lastpipe and ends.get(last) not in _PIPES:
                        continue  # `shopt -s lastpipe`: the last element runs in the script's shell
                    inner.setdefault(first, []).append(last)
            if op == "&":
                first = start
                span = spans.get(index) if _first(groups, index) in _CLOSES else None
                if span and span[0] < first:
                    first = span[0]
                inner.setdefault(first, []).append(index)
            if op not in _LOGIC and op not in _PIPES:
                starts[level] = index + 1
        for first, lasts in inner.items():
            inner[first] = sorted(set(lasts), reverse=True)  # the outermost first
        self.starts = inner
        self.groups = groups
        self.open: list[tuple[int, Mark]] = []  # (last group, closing mark), innermost last

    def close_before(self, index: int, ctx) -> None:
        """Put back the state of every job that ended before group `index`."""
        while self.open and self.open[-1][0] < index:
            passed(self.open.pop()[1], ctx)

    def opens(self, index: int, words: list, ctx) -> None:
        """At the read of group `index`'s command (after its keywords stepped the script's flow): save the state
        of each job that starts there and nests in the ones open."""
        lasts = self.starts.get(index)
        if not lasts or _first(self.groups, index) in _KEYWORDS - _OPENS:
            return
        for last in lasts:
            if self.open and last > self.open[-1][0]:
                continue  # not nested in the job around it: left as read before
            names: Optional[set] = set()
            depth = 0  # of `( )` subshells: one that opens or closes outside the job puts back a state of its own
            for group in range(index, last + 1):
                group_words = self.groups[group][0]
                if isinstance(group_words, Mark):
                    depth += 1 if group_words.opens else -1
                    if depth < 0:
                        break
                    continue
                if type(group_words).__name__ == "HereBody":
                    continue  # a body's own state is put back by itself
                if not isinstance(group_words, list):
                    names = None  # a function defined in it
                    break
                if not all(_spelled(w, names) for w in group_words if type(w) is Word):
                    names = None
                    break
            if depth:
                continue  # `( L=5; vllm ... ) &`: the subshell's `)` puts its state back (subshells.py)
            opening, closing = _marks(names)
            passed(opening, ctx)
            self.open.append((last, closing))

    def close_all(self, ctx) -> None:
        while self.open:
            passed(self.open.pop()[1], ctx)


def _levels(groups: Sequence) -> list[int]:
    """The nesting level (of compound commands and `( )` subshells) after each group: a `;` inside `{ L=2; }`
    does not start the and-or list around the braces (`L=5 || { L=2; } &` is one job from `L=5`)."""
    from .shell_commands import _LEAD_WORDS

    levels, level = [], 0
    for words, _ in groups:
        if isinstance(words, Mark):
            level += 1 if words.opens else -1
        elif isinstance(words, list) and words:
            texts = [literal(w) for w in words]
            if texts[0] in _CLOSES and level:
                level -= 1
            for text in texts:
                if text in _OPENS:
                    level += 1
                if text not in _LEAD_WORDS:
                    break
        levels.append(max(level, 0))
    return levels


def _first(groups: Sequence, index: int) -> str:
    if index >= len(groups):
        return ""
    words = groups[index][0]
    return literal(words[0]) if isinstance(words, list) and words else ""
