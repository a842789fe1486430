"""Run the splitter, detector and parser over every command in the real corpus."""
from __future__ import annotations

from collections import Counter

import pytest

from ctxlint.engines.detect import detect
from ctxlint.engines.parse import parse_invocation
from ctxlint.engines.execform import split_list
from ctxlint.engines.shellwords import split_shell

from .corpus_walk import CORPUS, corpus_commands

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")


def _source_text(form, payload, tok):
    return payload[tok.item] if form == "list" else payload


def run_corpus():
    stats: Counter = Counter()
    bad = []
    for where, form, payload, env, image, args_only in corpus_commands():
        stats["commands"] += 1
        res = split_list(payload, env.get) if form == "list" else split_shell(payload, env.get)
        for cmd in res.commands:
            for tok in cmd.tokens:
                src = _source_text(form, payload, tok)
                src = src if isinstance(src, str) else str(src)
                raw = src[tok.start:tok.end]
                # Each char of the cooked text maps into the typed word.
                if not (tok.start <= tok.end <= len(src)):
                    bad.append((where, tok))
                for k in range(len(tok.text)):
                    a, b = tok.span_of(k, k + 1)
                    if not (tok.start <= a < b <= tok.end):
                        bad.append((where, tok, k))
                if not tok.refs and '"' not in raw and "'" not in raw and "\\" not in raw and raw != tok.text:
                    bad.append((where, raw, tok.text))
            for d in detect(cmd.tokens, image, args_only):
                inv = parse_invocation(d.engine, cmd.tokens, env, d.launcher, d.subcommand, d.args_start)
                stats[f"parsed:{d.engine}"] += 1
                for s in inv.settings.values():
                    if s.value_span is None or s.token_index is None:
                        continue
                    tok = cmd.tokens[s.token_index]
                    src = _source_text(form, payload, tok)
                    src = src if isinstance(src, str) else str(src)
                    typed = src[s.value_span[0]:s.value_span[1]]
                    # The value span slices back to exactly what was typed for the value.
                    if not tok.refs and not any(q in typed for q in "'\"\\") and " " not in s.raw_text:
                        if typed != s.raw_text:
                            bad.append((where, typed, s.raw_text))
    return stats, bad


def test_corpus_parses_and_spans_slice_back():
    stats, bad = run_corpus()
    assert stats["commands"] > 50
    assert not bad, bad[:5]
    # Engines present in the corpus as command lines (llama.cpp via llama-swap `cmd:`).
    for engine in ("vllm", "sglang", "trtllm", "tgi", "llamacpp"):
        assert stats[f"parsed:{engine}"] > 0, stats
    assert sum(v for k, v in stats.items() if k.startswith("parsed:")) > 90
