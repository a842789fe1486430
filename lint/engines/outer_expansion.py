"""A script that one shell expands and another reads: `sh -c "..."` double-quoted, `eval`'s words, and a
here-document body with an unquoted delimiter that a shell runs (heredoc_scripts.py).

The outer shell expands the words first (variables, a partly known command string's value) and the inner reading
then parses the result as shell text: quotes and operators inside a variable's value count there. So

    CMD="vllm serve m --kv-transfer-config '{\\"kv_role\\": \\"kv_both\\"}'"
    eval "$CMD"        # or: bash -c "$CMD"

passes vLLM the JSON without its single quotes (read as words of the value, the quotes stayed and the JSON was
an engine refusal, CTX301, vLLM would never print). The words are expanded by shellwords (values sit where their
variable is referenced, a partly known value's words where they are typed), joined by spaces as `eval` joins its
arguments (bash manual, Bourne Shell Builtins), and split again. An unknown reference stays unknown: its `$` is
replaced by MARK, a character the inner reading takes as a plain one (inside its single quotes too, where a
reference the outer shell expanded is no literal `$NAME`); `restored` then turns MARK back into `$` and gives the
token holding it the reference, so the inner commands read `$MODEL` as the inline form does (CTX008).
"""
from __future__ import annotations

from typing import Sequence

from .tokens import Command, EnvAssign, Token, VarRef

MARK = "\x00"  # no launcher holds a NUL (file_reader.py skips such a file), nor does a manifest's command
Span = tuple[int, int]


def script_of(tokens: Sequence[Token]) -> tuple[str, list[Span], dict[int, VarRef]]:
    """(text, each character's source span, the unknown references by where they start) of expanded words
    joined by spaces, each unknown variable reference's `$` replaced by MARK."""
    texts: list[str] = []
    base: list[Span] = []
    marks: dict[int, VarRef] = {}
    for k, token in enumerate(tokens):
        if k:  # the space eval puts between its arguments, where the blank between them is typed
            texts.append(" ")
            base.append((tokens[k - 1].end, max(token.start, tokens[k - 1].end + 1)))
        text = token.text
        if len(token.starts) != len(text):  # no per-character positions: the word's own span for each
            texts.append(text)
            base.extend([(token.start, token.end)] * len(text))
            continue
        for ref in token.unresolved:
            if ref.style != "shell" or ref.start not in token.starts:
                continue
            at = token.starts.index(ref.start)
            if text[at] == "$":
                text = text[:at] + MARK + text[at + 1:]
                marks[ref.start] = ref
        texts.append(text)
        base.extend(zip(token.starts, token.ends))
    return "".join(texts), base, marks


def restored(commands: Sequence[Command], marks: dict[int, VarRef]) -> list[Command]:
    """The inner reading's commands with each MARK a `$` again, its token holding the unknown reference."""
    if not marks:
        return list(commands)
    return [Command(tuple(_token(t, marks) for t in c.tokens), tuple(EnvAssign(a.name, _token(a.token, marks))
                                                                      for a in c.env),
                    c.wrappers, c.image if c.image is None else _token(c.image, marks),
                    tuple(EnvAssign(a.name, _token(a.token, marks)) for a in c.exported), c.arm, c.image_gpus, c.branch,
                    c.background)
            for c in commands]


def _token(token: Token, marks: dict[int, VarRef]) -> Token:
    at = token.text.find(MARK)
    if at < 0:
        return token
    refs = list(token.refs)
    while at >= 0:
        ref = marks.get(token.starts[at]) if at < len(token.starts) else None
        if ref is not None and ref not in refs:
            refs.append(ref)
        at = token.text.find(MARK, at + 1)
    return Token(token.text.replace(MARK, "$"), token.start, token.end, token.starts, token.ends, tuple(refs),
                 token.item)
