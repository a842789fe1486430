"""A model path whose directory is not known but whose folder name is typed: `${ROOT}/models/Qwen2.5-7B-Instruct`.

A launch script often names its model below a directory it learns only when it runs (`$HOME/models/NAME`,
`${PROJECT_ROOT}/models/NAME` with `PROJECT_ROOT=$(dirname $(readlink -f $0))`, a caller's `$MODEL_DIR/NAME`), or
through a variable set to such a path (`MODEL_PATH=${ROOT}/models/NAME; vllm serve $MODEL_PATH`). The value as a
whole is unknown, but the folder the engine loads is named by the path's last segment, which the script types, and
a local path's folder name is what ctxlint matches a model by anyway (resolution/names.py), so the unknown
directory changes nothing of that match: `typed_folder` gives the path as written (its unknown references as
typed), for the resolver to match by that folder name, or None when the last segment is not wholly typed
(`${ROOT}/${NAME}`, `${NAME}-Instruct`, `$MODEL`). It never guesses the directory. (Sweep cli26: iisquare/fs-gpt's
`sbin/*.sh`, `MODEL_PATH=${PROJECT_ROOT}/models/Qwen2.5-0.5B-Instruct`.)
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence, Tuple

from .tokens import Token

_DEPTH = 4  # variables set to variables set to a path: a bound, not a limit met in practice


def folder_model(word: Optional[int], tokens: Sequence[Token],
                 spelled: Optional[Mapping[str, str]] = None) -> Optional[Tuple[int, str, Token]]:
    """(the index, the path as written, the path's own token) of the model's word (Invocation.model_word) when its
    value is not known but its typed folder name names the model; None otherwise, and when a reference in it stands
    for something the file spells otherwise (`spelled`: a systemd specifier's placeholder,
    adapters/systemd_unit.py) or is a Kubernetes `$(NAME)` (docs/inputs.md: CTX008 as before). In a `--model=PATH`
    word the path is what follows the `=`, never the flag."""
    if word is None or word >= len(tokens) or any(r.name in (spelled or {}) or r.style == "k8s"
                                                    for r in tokens[word].unresolved):
        return None  # a Kubernetes `$(DIR)` the container's env does not set is passed as written: no path then
    value = _after_flag(tokens[word])
    path = typed_folder(value)
    return None if path is None else (word, path, value)


def _after_flag(token: Token) -> Token:
    """The value of a `--model=PATH` word as a token of its own (its characters' places kept), else `token`: a
    model path never starts with `-`, and the flag's `=` is the first one in the word (`--model-path=...`)."""
    text = token.text
    if not text.startswith("-") or "=" not in text or len(token.starts) != len(text):
        return token
    k = text.index("=") + 1
    return Token(text[k:], token.starts[k] if k < len(text) else token.end, token.end, token.starts[k:],
                 token.ends[k:], token.refs, token.item)


def typed_folder(token: Token, depth: int = 0) -> Optional[str]:
    """The model word `token` as written when its last path segment is typed after every unknown part, else None."""
    unknown = token.unresolved
    if not unknown or depth > _DEPTH:
        return None
    if len(unknown) == 1 and unknown[0].typed is not None and _whole(token, unknown[0].start, unknown[0].end):
        held = unknown[0].typed  # `$MODEL_PATH` alone: the value the script set it to, as typed
        return held.text if not held.unresolved and _named(held.text) else typed_folder(held, depth + 1)
    last = max(r.end for r in unknown)
    if len(token.starts) != len(token.text):
        return None
    if len(set(token.starts)) == 1 and all(r.start == token.starts[0] for r in unknown):
        # every character at one place: a script another runs (`./serve.sh`, engines/script_calls.py) is located
        # at the caller's script word, so the places give no order; an unknown reference is kept in the text as
        # typed (`${HOME}`), so the last segment is typed when it follows the last of them (never one inside a
        # `$(python -c 'print("/models/NAME")')`)
        from .expansion_spans import after_last

        return token.text if _named(after_last(token.text)) else None
    cut = next((k for k in range(len(token.text)) if all(s >= last for s in token.starts[k:])), None)
    if cut is None or not _named(token.text[cut:]):
        return None
    return token.text


def _whole(token: Token, start: int, end: int) -> bool:
    """Every character of the token is typed inside the reference (`${P}`, `"$P"`)."""
    return bool(token.starts) and all(start <= s < end for s in token.starts)


def _named(tail: str) -> bool:
    """The typed text after the last unknown part ends in a folder name of its own: a `/`, then a name."""
    if "/" not in tail:
        return False
    name = tail.rstrip("/").rsplit("/", 1)[-1]
    return bool(name) and "$" not in name and "`" not in name and name not in (".", "..")
