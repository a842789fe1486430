"""The values of a Dockerfile's ARG and ENV instructions and its FROM images, expanded as Docker expands them at
build time (https://docs.docker.com/reference/dockerfile/ "Environment replacement": `$name`, `${name}`,
`${name:-word}`, `${name:+word}`, the escape before a `$` keeping it; an unset name is empty; "ARG": an ARG before
the first FROM is only in scope for the FROMs, a stage's `ARG NAME` takes it into the stage, a build argument
replaces a default; "ENV": a stage's ENV wins over an ARG of its name). A name whose value a build argument gives
from the host (compose `build.args` of a variable nothing sets here) is UNKNOWN, and so is every value made with
it: never guessed.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple, Union

from ctxlint.lazyre import lazy_compile

UNKNOWN = object()  # a value set, but not known here
Lookup = Callable[[str], Union[str, None, object]]  # a name's value, None when unset, or UNKNOWN
_REF = lazy_compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:[-+])((?:[^}\\]|\\.)*))?\}|([A-Za-z_][A-Za-z0-9_]*))")
# BuildKit's automatic platform ARGs, in the global scope of every build (docs "Automatic platform ARGs in the
# global scope"): set, by the machine that builds, so not known here
PLATFORM_ARGS = frozenset(f"{w}{p}" for w in ("BUILD", "TARGET")
                          for p in ("PLATFORM", "OS", "ARCH", "VARIANT"))


def expand(text: str, lookup: Lookup, escape: str = "\\", quotes: bool = True) -> Optional[str]:
    """`text` as Docker expands it (its quotes removed when `quotes`: ENV and ARG values); None when it needs an
    UNKNOWN value or uses an expansion other than Docker's documented ones."""
    out: List[str] = []
    i, n, quote = 0, len(text), None
    while i < n:
        c = text[i]
        if c == escape and quote != "'" and i + 1 < n:
            out.append(text[i + 1])
            i += 2
            continue
        if quotes and c in "'\"" and quote in (None, c):
            quote = None if quote else c
            i += 1
            continue
        if c == "$" and quote != "'":
            ref = _REF.match(text, i)
            if ref is None:
                if text.startswith("${", i):
                    return None  # `${name#...}` and the like: BuildKit's newer forms, not read
                out.append(c)
                i += 1
                continue
            value = lookup(ref.group(1) or ref.group(4))
            if value is UNKNOWN:
                return None
            op, word = ref.group(2), ref.group(3)
            if op is not None:
                word_value = expand(word, lookup, escape, quotes=False)
                if word_value is None:
                    return None
                value = (value or word_value) if op == ":-" else (word_value if value else "")
            out.append(value or "")
            i = ref.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def split_pairs(text: str, escape: str = "\\") -> List[Tuple[int, int]]:
    """(start, end) of each blank-separated word of `text`, a quoted part or an escaped blank staying in its word
    (ENV's and ARG's `name=value` list)."""
    words, i, n, start, quote = [], 0, len(text), None, None
    while i < n:
        c = text[i]
        if quote is None and c in " \t\r\n":
            if start is not None:
                words.append((start, i))
                start = None
            i += 1
            continue
        if start is None:
            start = i
        if c == escape and quote != "'" and i + 1 < n:
            i += 2
            continue
        if c in "'\"" and quote in (None, c):
            quote = None if quote else c
        i += 1
    if start is not None:
        words.append((start, n))
    return words
