"""A container's exec-form list (Kubernetes `command`/`args`, a Compose `entrypoint`/`command` list) with an item
that holds several words: the container runtime passes each item as one argument and no shell splits it, so
`args: ["--model-url URL --port 8000"]` gives the engine one word it refuses or misreads (engines/joined_words.py
says what each engine does). A list a shell runs (`sh -c SCRIPT`), a platform preset that re-splits the strings
(preset_args.py), a script, or a Compose string command (split by Compose, its words as quoted) is read as before.
A TGI image whose ENTRYPOINT is /tgi-entrypoint.sh (`exec text-generation-launcher $@`, unquoted) is the exception:
bash splits each item into words before the launcher sees them (entrypoint_fields). Imported only for a command with
a blank inside an argument."""
from __future__ import annotations

from typing import Optional, Tuple

from ctxlint.engines.detect import names_program
from ctxlint.engines.image_builds import tgi_entrypoint_splits
from ctxlint.engines.images import image_tag
from ctxlint.engines.joined_words import joined_items
from ctxlint.engines.result import Problem
from ctxlint.engines.tokens import SHELLS, SplitResult, Token
from ctxlint.lazyre import lazy_compile
from ctxlint.nodes import SEQ, STR_TAG

from ..records import replace

# bash's field splitting of an unquoted `$@` with the default IFS (space, tab, newline): runs of them separate words,
# and an item of none but them gives no word; quotes inside the value are no quotes (no quote removal after
# expansion). A word with `*`, `?` or `[` is also globbed against the container's files, which ctxlint cannot see:
# kept as written (a flag or number holds none).
_FIELD = lazy_compile(r"[^ \t\n]+")


def one_word_items(reader, inv, cmd, det):
    """`inv` with the engine's refusal of each item of a written exec-form list that holds several words."""
    c = reader.c
    if c.preset is not None or c.script is not None:
        return inv
    if any(w.split()[0].rsplit("/", 1)[-1] in SHELLS for w in cmd.wrappers if w.split()):
        return inv  # `sh -c SCRIPT`: the shell splits the script's words
    if det.via_image and names_program([t.text for t in cmd.tokens[det.args_start:]]):
        return inv  # a program given to the image's engine: said as that (entry_words.py)
    # the items of a list written as a YAML sequence (a Compose string's words are a sequence ctxlint made)
    written = {id(n) for lst in (c.command, c.args) if lst is not None and lst.kind == SEQ and lst.tag != STR_TAG
               for n in lst.value}

    def name(tok: Token) -> Optional[str]:
        i = tok.item
        if i is None or not 0 <= i < len(reader.item_nodes) or id(reader.item_nodes[i]) not in written:
            return None
        if tok.start != 0 or tok.end != len(reader.item_texts[i]):
            return None  # part of an item only
        return reader.item_nodes[i].path.rsplit(".", 1)[-1]

    return joined_items(inv, cmd.tokens, det.args_start, name)


def entrypoint_fields(split: SplitResult, image: str) -> Tuple[SplitResult, bool]:
    """The words a TGI image's /tgi-entrypoint.sh gives the launcher: each item split as bash splits an unquoted
    `$@` (_FIELD), each word at its characters in its item; and whether the image's tag leaves unknown if its
    entrypoint is that script (then the words are read, and one_item_unknown makes their settings unknown). An
    image whose entrypoint starts the launcher (or is no TGI one) keeps its items whole (joined_words._door)."""
    splits = tgi_entrypoint_splits(image)
    if splits is False or not split.commands:
        return split, False
    cmd = split.commands[0]
    tokens = tuple(w for t in cmd.tokens for w in _fields(t))
    return replace(split, commands=(replace(cmd, tokens=tokens),) + split.commands[1:]), splits is None


def _fields(tok: Token) -> list:
    if tok.refs or (not tok.starts and tok.end - tok.start != len(tok.text)):
        return [tok]  # a reference's value or an item not as written: its characters are not the word's
    if not any(c in " \t\n" for c in tok.text):
        return [tok]
    out = []
    for m in _FIELD.finditer(tok.text):
        a, b = m.span()
        start, end = (tok.starts[a], tok.ends[b - 1]) if tok.starts else (tok.start + a, tok.start + b)
        out.append(replace(tok, text=m.group(0), start=start, end=end, starts=tok.starts[a:b], ends=tok.ends[a:b]))
    return out


def one_item_unknown(reader, inv, tokens, image: str):
    """`inv` with every setting, unknown flag and refusal read from a word of a split item made unknown: the image's
    tag does not say whether its entrypoint splits the item (TGI 2.0.0 and later) or passes it whole (older,
    `-intel`, `-trtllm`), so neither reading is taken."""
    def part(k: Optional[int]) -> bool:
        if k is None or not 0 <= k < len(tokens):
            return False
        tok, i = tokens[k], tokens[k].item
        return i is not None and 0 <= i < len(reader.item_texts) and \
            (tok.start, tok.end) != (0, len(reader.item_texts[i] or ""))
    tag = image_tag(image)
    said = f"the tag `{tag}`" if tag else "an image with no tag"
    unknown = []
    settings = {}
    for key, s in inv.settings.items():
        k = s.token_index if part(s.token_index) else s.flag_index if part(s.flag_index) else None
        if k is None or s.origin != "flag":
            settings[key] = s
            continue
        item = tokens[k].item
        name = reader.item_nodes[item].path.rsplit(".", 1)[-1] if item < len(reader.item_nodes) else "an item"
        why = (f"{s.flag_spelling or key} {s.raw_text} (a word of {name}, one item of several: TGI images from 2.0.0 "
               "split it at blanks (/tgi-entrypoint.sh; -rocm from 2.0.4), older, -intel and -trtllm ones pass it "
               f"whole and the launcher refuses it, and {said} does not say which; tag the image with its release, "
               "or write each word as its own item)")
        unknown.append(Problem(why, s.token_index, s.value_span, s.item, key))
    model = inv.model if inv.model is None or any(s is inv.model for s in settings.values()) else None
    return replace(inv, settings=settings, model=model,
                   unresolved=inv.unresolved + tuple(unknown),
                   unknown_flags=tuple(u for u in inv.unknown_flags if not part(u.token_index)),
                   errors=tuple(e for e in inv.errors if not part(e.token_index)))
