"""The words llama.cpp's server has no option for. common_params_parse_ex looks every word of the command line up in
its table of options and throws "error: invalid argument: %s" for one that table does not hold; only an option
with a value handler takes the next word (ggml-org/llama.cpp@145b6280d6aa1890e22457143dad0badb3fd6820:
common/arg.cpp, common_params_parse_ex), and common_params_parse returns false on it, so the server exits.
llama-server has no positional argument: its model is `-m`, `-hf` or `--model-url`, and a word no option takes
(`-m a.gguf b.gguf`, a second file) stops it. Imported only for a llama.cpp command with such a word (rare)."""
from __future__ import annotations

from typing import List, Sequence

from .parse import _flaglike
from .result import Problem
from .tokens import Token


def surely_stray(toks: Sequence[Token], k: int, spec, unknown_flags: set, start: int = 0) -> bool:
    """Whether word k is one no option of llama-server takes, for certain: it and the words back to the option
    before it are typed as they are (no expansion made them and no blank is inside one: ctxlint may have split
    those otherwise than the shell), and either no option comes before it or the one before it is one ctxlint
    knows to take exactly one value, which it has already taken. A word after a switch is not reported: llama.cpp
    turned switches into valued options over its builds (`-fa` is bare in older builds, `-fa on` in later ones),
    and one after an option ctxlint does not know may be that option's value: uncertainty makes no error."""
    j = k
    while j >= start and (j == k or not _flaglike(toks[j].text)):
        if toks[j].refs or any(c.isspace() for c in toks[j].text):
            return False
        j -= 1
    if j < start:
        return True  # the first word after llama-server
    if j in unknown_flags or "=" in toks[j].text:
        return False  # `--ctx-size=8192` is refused as it is (flag_word_forms.whole_word)
    f, _ = spec.find(toks[j].text)
    return f is not None and f.takes == "one" and f.kind != "list" and k >= j + 2


def stray_words(toks: Sequence[Token], rest: Sequence[int], spec, unknown_flags: set, start: int) -> List[int]:
    """The words of `rest` (positionals) that surely stop llama-server."""
    return [k for k in rest if surely_stray(toks, k, spec, unknown_flags, start)]


def refusals(toks: Sequence[Token], stray: Sequence[int], start: int) -> List[Problem]:
    """One refusal per stray word, at the word: llama-server exits on the first, and each is a word to remove."""
    out = []
    for k in stray:
        t = toks[k]
        j = k - 1
        while j >= start and not _flaglike(toks[j].text):
            j -= 1
        took = (f"; `{toks[j].text} {toks[j + 1].text}` took the word before it, and an option takes one value"
                if j >= start and j + 1 < k else "")
        out.append(Problem(f"invalid argument: {t.text} (llama-server takes no positional argument: a word that is "
                           f"no option's value stops it{took})", k, (t.start, t.end), t.item))
    return out
