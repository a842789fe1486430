"""CTX302 looks for a suffixed text before asking whether the engine reads the setting as an integer (int_rule was
asked of every argument of every role): the values it then checks must be those the replaced order gave (kept here),
for every deployment of the samples and the corpus under every engine, and for roles of generated settings."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

from conftest import SHARED
from hypothesis import given, settings, strategies as st

from ctxlint.engine import Settings, lint_paths
from ctxlint.engines.specs import ENGINES
from ctxlint.engines.values import as_int, int_rule
from ctxlint.model import Deployment, Val
from ctxlint.records import replace
from ctxlint.rules import ctx302_suffix_read_differently as ctx302

ROOT = Path(__file__).resolve().parents[1]


def _replaced(dep: Deployment, engine: str) -> Iterator[Tuple[str, Val[Any], int]]:
    """_suffixed_values as it was: int_rule for every argument, then the suffix."""
    for role in dep.roles:
        candidates: List[Tuple[str, Optional[Val[Any]]]] = [(k, v) for k, v in role.engine_args
                                                            if int_rule(engine, k) is not None]
        if dep.input_format != "native":
            candidates += [("context_length", role.context_length), ("kv_pool_tokens", role.kv_pool_tokens)]
        for name, val in candidates:
            if val is None or not ctx302._SUFFIXED.match(ctx302._text(val)):
                continue
            value = as_int(engine, name, val.value)
            if value is not None:
                yield name, val, value


def _deployments() -> List[Deployment]:
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    return lint_paths(paths, Settings()).deployments


def test_the_same_values_on_every_sample_and_corpus_deployment_under_every_engine():
    deployments = _deployments()
    assert len(deployments) > 100
    found = 0
    for dep in deployments:
        for engine in ENGINES:
            new = list(ctx302._suffixed_values(dep, engine))
            assert new == list(_replaced(dep, engine)), (dep.file, engine)
            found += len(new)
    assert found  # some values are suffixed


NAMES = ["max_model_len", "max-model-len", "context_length", "max_num_batched_tokens", "max_total_tokens",
         "ctx_size", "ctx-size", "max_seq_len", "session_len", "gpu_memory_utilization", "model", "port", "n_ctx",
         "max_input_tokens", "MAX_INPUT_TOKENS", "max_batch_prefill_tokens", "chunked_prefill_size"]
TEXTS = st.one_of(st.sampled_from(["128k", "128K", "1M", "1Mi", "32k", "4096", "1e5", " 2 G ", "0.5k", "8Ki",
                                   "131072", "abc", "", "7t", "3.5M"]),
                  st.text(alphabet="0123456789.kKmMiGgT ", max_size=6))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NAMES), TEXTS, st.booleans()), max_size=8),
       st.sampled_from(["kubernetes", "native"]), st.one_of(st.none(), TEXTS), st.one_of(st.none(), TEXTS))
def test_the_same_values_for_generated_settings(args, input_format, context, pool):
    template = next(d for d in _DEPLOYMENTS if d.roles)
    role = template.roles[0]
    source = role.source or template.source

    def val(text: str, raw: bool) -> Val[Any]:  # a value as the adapters give it: typed, or text with its raw form
        number = text.strip().isdigit()
        return Val(int(text) if number and not raw else text, source, raw=text if raw else "")

    role = replace(role, engine_args=tuple((k, val(t, r)) for k, t, r in args),
                   context_length=None if context is None else val(context, True),
                   kv_pool_tokens=None if pool is None else val(pool, False))
    dep = replace(template, roles=(role,), input_format=input_format)
    for engine in ENGINES:
        assert list(ctx302._suffixed_values(dep, engine)) == list(_replaced(dep, engine)), engine


_DEPLOYMENTS = lint_paths([str(ROOT / "samples")], Settings()).deployments
