"""`NAME+=value`: bash appends the value to the variable's, as `NAME="$NAME"value` would.

    CMD="vllm serve $MODEL"
    CMD+=" --max-model-len 8192"             # or: if [ -n "$SMALL" ]; then CMD+=" --max-model-len 8192"; fi
    eval $CMD

In an assignment `+=` appends to a scalar's value (bash manual, Shell Parameters: "the += operator ... value is
expanded and appended to the variable's value"); `NAME+=(...)` appends to an array (shellarrays.py). The word
was not read as an assignment before (only `NAME=`), so it ran as a command that starts nothing and the variable
kept its earlier value: the flag the line appends was lost, and a command that sets --max-model-len 8192 was
checked at the model's whole context (a false CTX201). Here the word is read as `NAME=${NAME}value`, at the
places the line types it (the reference where the name is), so every reading of `CMD="$CMD --flag"` (a partly
known value, the branches of an `if`, an `eval`) reads it too.
"""
from __future__ import annotations

from typing import Sequence

from ctxlint.lazyre import lazy_compile

from .command_prefixes import ASSIGN
from .command_strings import _DECLARES, LEADING_KEYWORDS as _KEYWORDS
from .lex_words import Part, Word

_APPEND = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\+=")


def appends_read(words: Sequence[Word]) -> Sequence[Word]:
    """`words` with each scalar `NAME+=value` among a command's leading assignments (after `then`, `do` and the
    like, or as a declaring builtin's arguments) read as `NAME=${NAME}value`; `words` itself when there is none."""
    out = None
    leading, declaring = True, False
    for k, word in enumerate(words):
        first = word.parts[0] if word.parts else None
        text = first.runs[0][0] if first is not None and first.kind == "lit" and not first.quoted and first.runs \
            else ""
        alone = len(word.parts) == 1 and len(first.runs) == 1 if first is not None else False
        if leading and alone and text in _KEYWORDS:
            continue  # `then CMD+=" --flag"`: the branch's command
        if leading and alone and text in _DECLARES:
            leading, declaring = False, True
            continue
        leading = False
        found = _APPEND.match(text) if word.array is None else None
        if found is not None:
            out = list(words) if out is None else out
            out[k] = _rewritten(word, found.group(1))
        elif not declaring and not ASSIGN.match(text):
            break  # the command's program: its arguments assign nothing
    return words if out is None else out


def _rewritten(word: Word, name: str) -> Word:
    first = word.parts[0]
    text = "".join(run[0] for run in first.runs)
    starts = tuple(s for run in first.runs for s in run[1])
    ends = tuple(e for run in first.runs for e in run[2])
    cut = len(name)  # text[cut] is `+`, text[cut + 1] `=`
    ref = "${" + name + "}"
    at, to = starts[0], ends[cut - 1]  # the reference is where the name is typed
    keep = slice(cut + 1, cut + 2)  # the `=`, not the `+`
    parts = [Part(kind="lit", runs=[(name + "=", starts[:cut] + starts[keep], ends[:cut] + ends[keep])]),
             Part(kind="var", runs=[(ref, (at,) * len(ref), (to,) * len(ref))], quoted=True, name=name, style="shell")]
    if len(text) > cut + 2:
        parts.append(Part(kind="lit", runs=[(text[cut + 2:], starts[cut + 2:], ends[cut + 2:])]))
    return Word(parts=parts + list(word.parts[1:]), had_quotes=True, local_start=word.local_start,
                src_span=word.src_span, array=None, dq=word.dq)
