r"""A command substitution whose command is `cat` of a here-document: its output is the body, known.

    cmd=$(cat <<- EOF
    vllm serve ${MODEL_PATH} \
    --max-model-len 32768 \
    --port 6011
    EOF
    )
    eval $cmd

A command line written as a here-document so that it can span lines: `cat` copies the body to its output, and the
substitution is that output without its trailing newlines (bash manual, Command Substitution). The body is the one
a here-document gives any reader (heredoc_scripts.py, after bash's Here Documents): with an unquoted delimiter the
holding shell expands it first (parameters, command substitution, arithmetic; `\<newline>` joins the lines;
`<<-` strips each line's leading tabs); with a quoted one it is the text as typed. Before, the substitution was
unknown as a whole and the `eval` started nothing (iisquare/fs-gpt's ten sbin/ launchers, sweep cli25). Only
`cat` with one here-document and nothing else in the substitution is read; any other command's output is not known.
"""
from __future__ import annotations

from itertools import chain
from typing import Callable, Optional

from ctxlint.lazyre import lazy_compile

from .heredoc_scripts import _BodyLexer, _expanded, _untabbed
from .heredocs import HereBody, find_end
from .lex_words import Part
from .tokens import Token

# `$(cat <<EOF`, `$(cat <<-'EOF'`, `$( cat << "EOF"`, `$(cat <<\EOF`, then the line's end: the body starts there
_CAT = lazy_compile(r"\$\([ \t]*cat[ \t]*<<(-?)[ \t]*(?:'([^'\n]+)'|\"([^\"\n]+)\"|(\\?)([A-Za-z_][A-Za-z0-9_-]*))"
                    r"[ \t]*\n")
_CLOSE = lazy_compile(r"\s*\)")


def substituted(part: Part, ctx, expand: Callable) -> Optional[Token]:
    """The output of `$(cat <<DELIM ... DELIM)`, at the places its body types it (an expansion where its reference
    is), or None for any other substitution."""
    raw = "".join(run[0] for run in part.runs)
    found = _CAT.match(raw)
    if found is None:
        return None
    strip = found.group(1) == "-"
    delimiter = found.group(2) or found.group(3) or found.group(5)
    quoted = found.group(5) is None or found.group(4) == "\\"
    body_end, after = find_end(raw, found.end(), delimiter, strip)
    if body_end is None:
        return None
    if not _CLOSE.fullmatch(raw, after):  # more after the here-document than the substitution's `)`
        return None
    starts = tuple(chain.from_iterable(run[1] for run in part.runs))
    ends = tuple(chain.from_iterable(run[2] for run in part.runs))
    if len(starts) != len(raw):
        return None
    begin = found.end()
    body = HereBody(raw[begin:body_end], list(zip(starts[begin:body_end], ends[begin:body_end])), strip, quoted)
    if quoted:
        text, base = _untabbed(body) if strip else (body.text, body.base)
        token = Token(text, part.runs[0][1][0], part.runs[-1][2][-1], tuple(a for a, _ in base),
                      tuple(b for _, b in base), (), ctx.item)
    else:
        token = _expanded(_BodyLexer(body.text, body.base, k8s=ctx.item is not None, go=ctx.go)
                          .expanding_word(strip), ctx, expand)
    keep = len(token.text.rstrip("\n"))  # the substitution drops the output's trailing newlines
    return Token(token.text[:keep], token.start, token.end, token.starts[:keep], token.ends[:keep], token.refs,
                 token.item)

