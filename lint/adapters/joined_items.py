"""A container's exec-form list (Kubernetes `command`/`args`, a Compose `entrypoint`/`command` list) with an item
that holds several words: the container runtime passes each item as one argument and no shell splits it, so
`args: ["--model-url URL --port 8000"]` gives the engine one word it refuses or misreads (engines/joined_words.py
says what each engine does). A list a shell runs (`sh -c SCRIPT`), a platform preset that re-splits the strings
(preset_args.py), a script, or a Compose string command (split by Compose, its words as quoted) is read as before.
Imported only for a command with a blank inside an argument."""
from __future__ import annotations

from typing import Optional

from ctxlint.engines.detect import names_program
from ctxlint.engines.joined_words import joined_items
from ctxlint.engines.tokens import SHELLS, Token
from ctxlint.nodes import SEQ, STR_TAG


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
