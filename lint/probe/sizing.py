"""Prompt sizing: text of a chosen token count, by the model's tokenizer or by words.

With the optional `tokenizers` package (`pip install "ctxlint[probe]"`) and the
model's tokenizer.json (a local path, or the Hugging Face cache; never downloaded)
the filler text is counted exactly. Without it, each filler word counts as one
token. The filler is one short English word that every common BPE and
SentencePiece vocabulary holds as a single token, and tokenizers split on spaces
before merging, so the word count can only UNDER-count what the server counts;
chat templates add tokens, never remove them. Which direction is safe depends on
the case: see ctxlint.probe.run for how each case uses the margin.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

from ctxlint.probe.errors import ProbeError

FILLER = "the"


class WordCounter:
    """One token per whitespace-separated word: never more than a real tokenizer counts."""

    exact = False
    label = "word count (no tokenizer): at most the server's count"

    def count(self, text: str) -> int:
        return len(text.split())


class TokenizerCounter:
    """The model's own tokenizer (special tokens left out: the template adds those)."""

    exact = True

    def __init__(self, path: str) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise ProbeError("--tokenizer needs the optional tokenizers package: "
                             "pip install \"ctxlint[probe]\"") from None
        try:
            self._tokenizer = Tokenizer.from_file(path)
        except Exception as exc:  # tokenizers raises its own Exception subclass for bad files
            raise ProbeError(f"tokenizer {path}: cannot load it: {exc}") from None
        self.label = f"tokenizer {path}"

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def load_counter(tokenizer: Optional[str], model: str):
    """The counter for this run: --tokenizer, else the model's in the hub cache, else words."""
    if tokenizer:
        path = Path(tokenizer)
        if path.is_dir():
            path = path / "tokenizer.json"
        if not path.is_file():
            raise ProbeError(f"--tokenizer {tokenizer}: no tokenizer.json there")
        return TokenizerCounter(str(path))
    cached = cached_tokenizer(model)
    if cached is not None:
        try:
            return TokenizerCounter(cached)
        except ProbeError:  # tokenizers not installed (or a broken cache entry): count words
            pass
    return WordCounter()


def cached_tokenizer(model: str) -> Optional[str]:
    """tokenizer.json of `model` (org/name) in a local Hugging Face hub cache, newest snapshot."""
    if "/" not in model:
        return None
    folder = "models--" + model.replace("/", "--")
    for cache in _hub_caches():
        snapshots = Path(cache) / folder / "snapshots"
        found = sorted(snapshots.glob("*/tokenizer.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
            if snapshots.is_dir() else []
        if found:
            return str(found[0])
    return None


def _hub_caches() -> List[str]:
    if os.environ.get("HF_HUB_CACHE"):
        return [os.environ["HF_HUB_CACHE"]]
    home = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    return [os.path.join(home, "hub")]


def filler(counter, tokens: int) -> str:
    """Filler text that `counter` counts as `tokens` (as near as whole words allow)."""
    if tokens <= 0:
        return ""
    words = tokens
    for _ in range(4):  # a real tokenizer may count the first word or a few merges differently
        text = " ".join([FILLER] * words)
        counted = counter.count(text)
        if counted == tokens:
            return text
        words = max(1, words + tokens - counted)
    return " ".join([FILLER] * words)
