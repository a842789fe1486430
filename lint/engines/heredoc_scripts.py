r"""A here-document body a shell reads as a script (heredocs.read_as_script: `bash <<EOV`, `cat <<EOV | sh`,
`ssh host <<EOV`, `sbatch <<EOV`, or a launcher written to run later, `cat > run_vllm.sh <<EOV`), read as it runs.

Bash's manual (doc/bashref.texi, Redirections, Here Documents; gnu.org/software/bash/manual): "If any part of word
is quoted, the delimiter is the result of quote removal on word, and the lines in the here-document are not
expanded. If word is unquoted, [...] the here-document text is treated similarly to a double-quoted string: all
lines of the here-document are subjected to parameter expansion, command substitution, and arithmetic expansion,
[...] and ‘\’ must be used to quote the characters ‘\’, ‘$’, and ‘`’; however, double quote characters have no
special meaning." A `\` before any other character stays (POSIX, 2.7.4 Here-Document: the backslash behaves as
inside double quotes).

So with an unquoted delimiter the shell that holds the here-document expands the body first, with its variables at
that line, and what the inner shell runs (or the file written holds) is the result:

    PORT="${PORT:-8000}"
    cat > /tmp/run_vllm.sh <<EOV
    exec vllm serve Qwen/Qwen3-8B --port '${PORT}'
    EOV

writes `--port '8000'` (read as typed it was `'${PORT}'`, a refusal vLLM never prints). The expansion is the one a
double-quoted `sh -c` string gets (outer_expansion.py): literal characters where they are typed, a value where its
reference is, an unknown one kept as the reference (CTX008), then the result read again as shell text. A quoted
delimiter (`<<'EOV'`, `<<"EOV"`, `<<\EOV`) gives the body as typed: there `'${PORT}'` is what the shell reads.

The same section: "If the delimiter is not quoted, the \<newline> sequence is treated as a line continuation: the
two lines are joined and the backslash-newline is removed. This happens while reading the here-document" (parse.y,
read_a_line: a `\\` pair is kept whole), and under `<<-` "leading tab characters are stripped from input lines":
each line read (make_cmd.c, make_here_document), so a line joined to the one before keeps its tabs. The body is a
script of its own: an `if` it leaves open does not reach past its end.
"""
from __future__ import annotations

from itertools import chain
from typing import Callable

from ctxlint.lazyre import lazy_compile

from ..records import replace

from .decided_tests import hiding
from .heredocs import HereBody
from .lex_words import Word
from .lexer import Lexer
from .outer_expansion import restored, script_of
from .tokens import Command, SplitProblem, Token

# What the holding shell acts on in an unquoted body: an expansion, a backslash, a line's end (`<<-` strips the
# next line's tabs); the rest is copied as typed, a run at a time.
_SPECIAL = lazy_compile(r"[\\$`\n]")
_TABS = lazy_compile(r"\t*")
_LEADING_TABS = lazy_compile(r"(?m)^\t+")


def body_commands(body: HereBody, ctx, depth: int, expand: Callable, split_text: Callable) -> list[Command]:
    """The commands of `body`, read at depth + 1 in `ctx` (the split context of the script that holds it, at the
    here-document's line). `expand`, `split_text`: word_expansion's `expand_word` and shellwords' `split_text`.
    A text no shell holds (depth 0 of a string split without one) expands nothing: its body is read as typed."""
    if not body.quoted and (depth > 0 or ctx.script):
        lexer = _BodyLexer(body.text, body.base, k8s=ctx.item is not None, go=ctx.go)
        word = lexer.expanding_word(body.strip_tabs)
        ctx.problems.extend(SplitProblem(m, s, e, ctx.item) for m, s, e in lexer.problems)
        text, base, marks = script_of([_expanded(word, ctx, expand)])
    else:
        (text, base), marks = _untabbed(body) if body.strip_tabs else (body.text, body.base), {}
    flow, path, ifs = ctx.flow, list(ctx.local.branches.path), len(ctx.local.ifs)
    # the shell that reads the body sees the script's names only when exported: no `if` of it is decided by them
    hidden = hiding(ctx, list(ctx.local))
    # another process reads the body: what it assigns is put back when it is read (apart_state.py)
    from .apart_state import body_marks
    from .subshells import passed

    opening, closing = body_marks(text)
    passed(opening, ctx)
    try:
        if body.remote:  # `ssh HOST <<EOV`: run on HOST, as `ssh HOST SCRIPT` (ssh_commands.py)
            return [replace(c, wrappers=("ssh",) + c.wrappers) for c in _remote_commands(text, base, marks, ctx,
                                                                                         depth, split_text)]
        return restored(split_text(text, base, ctx, depth + 1), marks)
    finally:  # an `if` or loop the body leaves open ends with it
        ctx.flow, ctx.local.branches.path = flow, path
        del ctx.local.ifs[ifs:]
        ctx.undecided = hidden
        passed(closing, ctx)
        if body.written:
            from .apart_state import maybe_sourced
            maybe_sourced(text, ctx)


def _remote_commands(text: str, base, marks, ctx, depth: int, split_text: Callable) -> list[Command]:
    """The commands HOST's shell reads from a body fed to ssh: with none of this script's variables, exported ones
    too (ssh passes only what `SendEnv` names, ssh_config(5)), so a `$X` the body does not set is the remote
    shell's, not known (VarRef.why "ssh"); what this script's shell expanded first (an unquoted body) is kept."""
    from .word_expansion import SplitContext

    own = SplitContext({}.get, ctx.item, ctx.go)
    own.outside = "ssh"
    commands = restored(split_text(text, base, own, depth + 1), marks)
    ctx.refs.extend(own.refs)
    ctx.problems.extend(own.problems)
    return commands


class _BodyLexer(Lexer):
    """The lexer's expansions (`$NAME`, `${...}`, `$(...)`, backquotes) over an unquoted body, the rest literal."""

    def expanding_word(self, strip_tabs: bool) -> Word:
        """The body as one double-quoted-like word, `"` a plain character, `\\` escaping only `$`, a backquote,
        itself and a line end (which it removes)."""
        s, n = self.s, len(self.s)
        self.word = word = Word(had_quotes=True, src_span=self.src(0, n))
        at = _TABS.match(s).end() if strip_tabs else 0
        while at < n:
            found = _SPECIAL.search(s, at)
            stop = found.start() if found else n
            self._lit_run(at, stop, True)
            if found is None:
                break
            c, after = s[stop], s[stop + 1:stop + 2]
            if c == "\n":
                self._lit_run(stop, stop + 1, True)
                at = _TABS.match(s, stop + 1).end() if strip_tabs else stop + 1
            elif c == "\\" and after == "\n":
                at = stop + 2  # removed as the line is read: the next line is part of this one, its tabs kept
            elif c == "\\":
                if after in ("$", "`", "\\"):
                    self._lit(after, stop, stop + 2, True)
                    at = stop + 2
                else:  # before any other character the backslash stays
                    self._lit_run(stop, stop + 1, True)
                    at = stop + 1
            else:
                self.i = stop
                if c == "$":
                    self._dollar(quoted=True)
                else:
                    self._backtick(quoted=True)
                at = self.i
        self.word = None
        return word


def _expanded(word: Word, ctx, expand: Callable) -> Token:
    """The body as its shell leaves it, one token: literal runs where they are typed, each expansion (`expand`, one
    reference at a time, as in a double-quoted string: never split) where its reference is."""
    texts: list[str] = []
    starts: list[tuple[int, ...]] = []
    ends: list[tuple[int, ...]] = []
    refs = []
    for part in word.parts:
        if part.kind == "lit":
            for text, a, b in part.runs:
                texts.append(text)
                starts.append(a)
                ends.append(b)
            continue
        one = Word([part], had_quotes=True, src_span=(part.runs[0][1][0], part.runs[-1][2][-1]))
        for k, token in enumerate(expand(one, ctx, partials=True)):
            if k:  # `${ARGS[@]}`'s elements: joined by a space, as inside double quotes
                texts.append(" ")
                starts.append((token.start,))
                ends.append((token.end,))
            texts.append(token.text)
            starts.append(token.starts)
            ends.append(token.ends)
            refs.extend(token.refs)
    start, end = word.src_span
    return Token("".join(texts), start, end, tuple(chain.from_iterable(starts)), tuple(chain.from_iterable(ends)),
                 tuple(refs), ctx.item)


def _untabbed(body: HereBody) -> tuple[str, list[tuple[int, int]]]:
    """(text, spans) of a `<<-` body read as typed, without the leading tabs of its lines."""
    texts, base, at = [], [], 0
    for tabs in _LEADING_TABS.finditer(body.text):
        texts.append(body.text[at:tabs.start()])
        base.extend(body.base[at:tabs.start()])
        at = tabs.end()
    texts.append(body.text[at:])
    base.extend(body.base[at:])
    return "".join(texts), base
