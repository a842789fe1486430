"""normalize_engine remembers its answer per written name: the same answers as reading the name each time."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from ctxlint.engines import values
from ctxlint.engines.specs import ENGINES


def _read(name):
    """normalize_engine as it read every name (the oracle)."""
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    key = values._ALIASES.get(key, key)
    return key if key in ENGINES else None


class _Str(str):
    pass


NAMES = [*ENGINES, *values._ALIASES, " vLLM ", "VLLM", "Llama.CPP", "tgi\n", "", " ", "unknown", "sglang-router",
         None, 1, 2.5, True, ["vllm"], _Str("vllm"), _Str(" TGI ")]


def test_every_known_spelling_and_odd_values_read_the_same_twice():
    for name in NAMES:
        assert values.normalize_engine(name) == _read(name), name
        assert values.normalize_engine(name) == _read(name), name  # remembered
    assert values.normalize_engine(" vLLM ") == "vllm" and values.normalize_engine("llama-cpp") == "llamacpp"
    assert values._NORMALIZED["VLLM"] == "vllm" and values._NORMALIZED["unknown"] is None
    assert not any(type(key) is not str for key in values._NORMALIZED)  # a str subclass is read, not kept


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="vlmSGLANGtgi.-_ \t", max_size=12))
def test_made_up_names_read_the_same_remembered_or_not(name):
    assert values.normalize_engine(name) == _read(name)
    assert values.normalize_engine(name) == _read(name)
