"""Exact memoization of the capacity estimate (physics/memo.py): a hit only when the input is
indistinguishable, never a different answer."""
from __future__ import annotations

import dataclasses
import math

import pytest

from ctxlint.physics import capacity, memo
from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.models import lookup_model
from ctxlint.physics.releases import VLLM_RELEASES
from ctxlint.physics.weights import format_by_key


def test_equal_but_distinguishable_values_key_apart():
    # 1 == 1.0 == True and 0.0 == -0.0, yet each prints differently in a message.
    keys = [memo.exact_key(v) for v in (1, 1.0, True, 0.0, -0.0, "1", (1,), [1])]
    assert len(set(keys)) == len(keys)
    assert memo.exact_key({"a": 1, "b": 2}) != memo.exact_key({"b": 2, "a": 1})  # order can matter
    assert memo.exact_key({"dtype": "fp8", "tp": 2}) == memo.exact_key({"dtype": "fp8", "tp": 2})
    assert memo.exact_key(0.1 + 0.2) != memo.exact_key(0.3)
    with pytest.raises(memo.Unkeyable):
        memo.exact_key(math.nan)
    with pytest.raises(memo.Unkeyable):
        memo.exact_key({"x": object()})


def test_dataclasses_key_by_value_and_type():
    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    assert memo.exact_key(arch) == memo.exact_key(dataclasses.replace(arch))
    assert memo.exact_key(arch) != memo.exact_key(dataclasses.replace(arch, total_params_b=8))  # another count
    assert memo.exact_key(dataclasses.replace(arch, total_params_b=8)) != \
        memo.exact_key(dataclasses.replace(arch, total_params_b=8.0))


def test_tokens_are_never_reused_after_the_table_is_cleared(monkeypatch):
    monkeypatch.setattr(memo, "_TABLE_MAX", 2)
    first = memo.exact_key(("a",))
    for n in range(5):  # fills and clears the table
        memo.exact_key((n,))
    assert memo.exact_key(("b",)) != first
    assert memo.exact_key(("a",)) == memo.exact_key(("a",))


def test_memo_returns_the_computed_result_and_is_bounded():
    calls = []
    cached = memo.Memo(lambda arg: calls.append(arg) or len(calls), 2)
    assert [cached({"k": 1}), cached({"k": 1}), cached({"k": 1.0}), cached({"k": 2}), cached({"k": 1})] \
        == [1, 1, 2, 3, 4]  # {"k": 1} evicted by the two after it
    assert cached([math.nan]) == 5 and cached([math.nan]) == 6  # no key: computed every time
    assert len(cached.results) == 2


def test_compute_hits_give_what_a_fresh_computation_gives():
    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    inp = CapacityInput(arch=arch, engine="vllm", accelerator="L4", settings={"max_model_len": 32768},
                        context_length=32768)
    first = compute(inp)
    again = compute(dataclasses.replace(inp, settings=dict(inp.settings)))
    assert again is first
    assert capacity._compute(inp) == first
    other = compute(dataclasses.replace(inp, settings={"max_model_len": 32768.0}))
    assert other is not first


def test_the_device_free_half_is_computed_once_per_release_and_gives_the_same_estimate(monkeypatch):
    # The CTX208 search estimates one role at ~30 memory sizes under seven vLLM releases: the
    # served dtype, KV layout and weights per GPU are the same at every size.
    from ctxlint.physics import model_side
    from ctxlint.physics.accelerators import accelerator_from_mapping
    from ctxlint.physics.releases import VLLM_RELEASES

    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    devices = [accelerator_from_mapping("candidate", {"memory_gib": gib}) for gib in (24.0, 40.0, 80.0)]
    inputs = [CapacityInput(arch=arch, engine="vllm", accelerator=device,
                            settings={"max_model_len": 65536, "dtype": "float16"}, context_length=65536)
              for device in devices]
    monkeypatch.setattr(model_side, "_MEMO", memo.Memo(model_side._model_side, 512))
    cached = [capacity._compute(inp) for inp in inputs]
    assert len(model_side._MEMO.results) == len(VLLM_RELEASES)
    monkeypatch.setattr(model_side, "_MEMO", memo.Memo(model_side._model_side, 0))  # computes every time
    assert [capacity._compute(inp) for inp in inputs] == cached
    assert cached[0].pool_tokens != cached[2].pool_tokens


def test_a_callers_shared_dict_keys_the_model_side_once_and_changes_no_estimate(monkeypatch):
    # needs.py estimates one role on many devices, folded or release by release, with one dict for
    # all of them: the model side's settings are keyed once, and each result is compute()'s.
    from ctxlint.physics import model_side
    from ctxlint.physics.accelerators import accelerator_from_mapping

    arch = lookup_model("google/gemma-3-27b-it")
    fields = dict(arch=arch, engine="vllm", settings={"max_num_seqs": 64, "dtype": "bfloat16"}, tp=2,
                  context_length=32768)
    inputs = [CapacityInput(accelerator=accelerator_from_mapping("candidate", {"memory_gib": gib}),
                            **dict(fields, engine_version=version))
              for gib in (24.0, 80.0, 200.0) for version in (None, "0.9.0", "0.20.0")]
    plain = [capacity._compute(inp) for inp in inputs]
    keyed = []
    monkeypatch.setattr(model_side, "exact_key", lambda value: keyed.append(value) or memo.exact_key(value))
    shared: dict = {}
    assert [capacity.compute_keyed(("test", n), inp, shared) for n, inp in enumerate(inputs)] == plain
    # the model side's arguments but the version (ten: the context length is one, for SGLang's Llama 4)
    assert sum(1 for value in keyed if isinstance(value, tuple) and len(value) == 10) == 1
    assert capacity.compute_keyed(("test", 0), inputs[1]) is capacity.compute_keyed(("test", 0), inputs[0], {})


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_model_sides_release_free_parts_are_shared_and_change_nothing(engine, monkeypatch):
    # A role of unknown vLLM version is estimated under seven releases: the served dtype, the KV
    # layout of each (swa_full, MLA heads) the releases give and the weights are worked out once.
    from ctxlint.physics import model_side

    calls = []
    for name in ("kv_breakdown", "weights_per_gpu", "serving_dtype"):
        real = getattr(model_side, name)
        monkeypatch.setattr(model_side, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    versions = (None, "0.6.0", "0.7.0", "0.7.3", *VLLM_RELEASES, "1.0.0")
    cases = [("deepseek-ai/DeepSeek-V3", 8, 1, 1, "auto", {"VLLM_MLA_DISABLE": "1"}, None),
             ("deepseek-ai/DeepSeek-V3", 8, 2, 2, "fp8", {"enable_expert_parallel": True}, format_by_key("fp8")),
             ("google/gemma-3-27b-it", 2, 1, 1, "auto", {"dtype": "float16", "swa_full": True}, None),
             ("openai/gpt-oss-120b", 2, 1, 1, "auto", {"cpu_offload_gb": 4}, None),
             ("Qwen/Qwen3-30B-A3B", 1, 1, 2, "fp8_e5m2", {"max_num_batched_tokens": 8192}, format_by_key("int4")),
             ("meta-llama/Llama-3.1-8B-Instruct", 1, 1, 1, "auto", {}, None)]
    for model, tp, pp, dp, dtype, settings, weights in cases:
        args = [(engine, lookup_model(model), tp, pp, dp, dtype, 0, settings, weights, None, v) for v in versions]
        del calls[:]
        plain = [model_side._model_side(a) for a in args]
        assert calls.count("weights_per_gpu") == calls.count("serving_dtype") == len(versions)
        del calls[:]
        shared: dict = {}
        assert [model_side._model_side(a, shared) for a in args] == plain
        layouts = {(side.swa_full, side.br is not None and side.br.formula) for side in plain}
        assert calls.count("serving_dtype") == calls.count("weights_per_gpu") == 1
        assert calls.count("kv_breakdown") <= len(layouts) + 1 < len(versions)
